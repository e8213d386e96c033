/**
 * The shapes in which protocol v1 controllers other than tabgate's extension are known to answer some
 * tools, each rewritten into the catalog's result. A variant names the field it came by, for the
 * gateway's log; nothing here reads more of a result than the fields it rewrites.
 */
import type { ToolName } from '../../protocol/index.js';
import { imageSize } from './image-size.js';

export interface Rewritten {
  /** The controller's field the rewrite started from (`dataUrl`, `text`), for the log. */
  field: string;
  value: Record<string, unknown>;
}

type Variant = (result: Record<string, unknown>, args: Record<string, unknown>) => Rewritten | null;

const DATA_URL = /^data:(image\/(?:png|jpeg));base64,(.*)$/s;

/** A screenshot as a data URL (`dataUrl` or `data_url`) rather than base64 with its size. */
const screenshotDataUrl: Variant = (result, args) => {
  const field = typeof result.dataUrl === 'string' ? 'dataUrl' : 'data_url';
  const dataUrl = result[field];
  if (typeof dataUrl !== 'string') return null;
  const match = DATA_URL.exec(dataUrl);
  const [, mimeType, data] = match ?? [];
  if (!mimeType || data === undefined) return null;
  const size =
    typeof result.width === 'number' && typeof result.height === 'number'
      ? { width: result.width, height: result.height }
      : imageSize(mimeType, Buffer.from(data, 'base64'));
  if (!size) return null;
  const { dataUrl: _camel, data_url: _snake, ...rest } = result;
  return {
    field,
    value: {
      ...rest,
      mime_type: mimeType,
      data,
      ...size,
      full_page: typeof result.full_page === 'boolean' ? result.full_page : args.full_page === true,
    },
  };
};

const REF = /@e\d+\b/g;

/** A snapshot whose outline is `text`, alone or with the page's url and title. */
const snapshotText: Variant = (result) => {
  if (typeof result.text !== 'string' || 'snapshot' in result) return null;
  const { text, ...rest } = result;
  return {
    field: 'text',
    value: {
      url: '',
      title: '',
      ...rest,
      snapshot: text,
      ref_count: text.match(REF)?.length ?? 0,
      truncated: false,
      total_chars: text.length,
      offset: 0,
      next_offset: null,
    },
  };
};

const VARIANTS: Partial<Record<ToolName, Variant>> = {
  browser_screenshot: screenshotDataUrl,
  browser_snapshot: snapshotText,
};

/** The catalog's shape of a result that came in a known variant; null when it is none of them. */
export function rewriteVariant(
  tool: ToolName,
  result: unknown,
  args: Record<string, unknown>,
): Rewritten | null {
  const variant = VARIANTS[tool];
  if (!variant || typeof result !== 'object' || result === null || Array.isArray(result)) return null;
  return variant(result as Record<string, unknown>, args);
}
