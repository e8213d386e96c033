/**
 * How tool results and failures look to an MCP client: snapshots as plain text a model reads directly,
 * screenshots as image content, everything else as compact JSON; failures as `isError` results that say
 * what went wrong and what to do next. The only place MCP output is shaped. Results come in the
 * catalog's shapes (a controller's answer was held to them at the broker), so each tool's result is
 * rendered by the tool's name, never by guessing from its fields.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  hintOf,
  isTabgateError,
  type RedirectHop,
  type ResultNotices,
  type SnapshotResult,
  type ToolName,
  type ToolResult,
} from '../../protocol/index.js';

type Content = CallToolResult['content'][number];
type Render<N extends ToolName> = (result: ToolResult<N>) => Content[];

/**
 * The snapshot text headed by the page. A cut page already ends with the pager's note on how to read on
 * (every transport carries it), so none is added here.
 */
export function snapshotText(snapshot: SnapshotResult): string {
  return `Page: ${snapshot.title || '(untitled)'} — ${snapshot.url}\n${snapshot.snapshot}`;
}

const text = (value: string): Content => ({ type: 'text', text: value });

/** The result as JSON, without what is said in words after it (notices, an open dialog). */
function json(result: object, without: readonly string[] = []): Content {
  const rest = Object.entries(result).filter(
    ([key]) => key !== 'notices' && key !== 'dialog' && !without.includes(key),
  );
  return text(JSON.stringify(Object.fromEntries(rest)));
}

/** `, redirected from: A (HTTP 302) → B (meta refresh)`: the way a login bounce is told apart. */
function redirectLine(redirects: readonly RedirectHop[] | undefined): string {
  if (!redirects || redirects.length === 0) return '';
  const hops = redirects.map((hop) => {
    const how = hop.via === 'http' ? `HTTP ${String(hop.status)}` : hop.via.replace('_', ' ');
    return `${hop.url} (${how})`;
  });
  return `, redirected from: ${hops.join(' → ')}`;
}

const snapshot = (result: SnapshotResult): Content[] => [text(snapshotText(result))];

const RENDERERS: { [N in ToolName]?: Render<N> } = {
  browser_snapshot: snapshot,
  browser_read: snapshot,
  browser_wait_for: snapshot,
  browser_navigate: (result) => {
    if (!result.snapshot) return [json(result)];
    const status = result.status === null ? '' : ` (HTTP ${result.status})`;
    return [
      text(
        `Navigated to ${result.url}${status}${redirectLine(result.redirects)}\n${snapshotText(result.snapshot)}`,
      ),
    ];
  },
  browser_screenshot: (result) => [
    { type: 'image', data: result.data, mimeType: result.mime_type },
    json(result, ['data', 'mime_type']),
  ],
};

export function renderToolResult<N extends ToolName>(tool: N, result: ToolResult<N>): CallToolResult {
  const render = RENDERERS[tool];
  const content = render ? render(result) : [json(result)];
  const { notices, dialog } = result as ResultNotices;
  if (notices && notices.length > 0) {
    content.push(text(notices.map((notice) => `Notice: ${notice}`).join('\n')));
  }
  // Said last, where a model reads what to do next: nothing but browser_dialog moves the page on.
  if (dialog !== undefined) {
    content.push(text(`Dialog open: ${dialog}. Answer it with browser_dialog (accept or dismiss).`));
  }
  return { content };
}

/** A failure the agent can act on: the stable code, what happened, and what to do next. */
export function renderToolError(error: unknown): CallToolResult {
  if (isTabgateError(error)) {
    return {
      isError: true,
      content: [text(`Error ${error.code}: ${error.message}\nNext: ${hintOf(error.code)}`)],
    };
  }
  return {
    isError: true,
    content: [text('Error internal_error: the tool failed unexpectedly; the gateway log has details.')],
  };
}
