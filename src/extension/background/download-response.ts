/**
 * Whether a document's response will become a download, read from what Chrome itself decides by: a
 * `Content-Disposition: attachment`, a request Chrome made as a download (`a[download]` and the
 * download API send no `Accept`, which every navigation sends), or a type Chrome cannot show. A wrong
 * "yes" would take a page away from the person, so anything Chrome may render stays a page.
 */

export interface DownloadResponse {
  /** The name the site suggests (Content-Disposition, else the URL's last segment). */
  name: string;
  /** Content-Length, when the server said it. */
  size: number | undefined;
}

interface Response {
  url: string;
  status: number;
  headers: readonly { name: string; value: string }[];
  requestHeaders: Readonly<Record<string, string>>;
}

/** Types Chrome renders (or hands to a viewer of its own) rather than saving. */
const RENDERED = [
  /^text\//,
  /^image\//,
  /^audio\//,
  /^video\//,
  /^multipart\/x-mixed-replace$/,
  /^application\/(xhtml\+xml|xml|json|pdf|javascript|ecmascript|x-javascript|wasm)$/,
  /^application\/[\w.-]+\+(xml|json)$/,
];

function header(headers: Response['headers'], name: string): string | undefined {
  return headers.find((h) => h.name.toLowerCase() === name)?.value;
}

/** The file name of a Content-Disposition: `filename*` (RFC 5987) first, then `filename`. */
export function dispositionName(disposition: string): string | null {
  const extended = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(disposition);
  if (extended?.[2]) {
    try {
      return decodeURIComponent(extended[2].trim().replace(/^"|"$/g, ''));
    } catch {
      // Falls back to the plain form.
    }
  }
  const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(disposition);
  const value = plain?.[1] ?? plain?.[2];
  return value ? value.trim().replace(/\\(.)/g, '$1') : null;
}

function urlName(url: string): string {
  try {
    const last = new URL(url).pathname.split('/').pop() ?? '';
    return decodeURIComponent(last);
  } catch {
    return '';
  }
}

export function downloadOf(response: Response): DownloadResponse | null {
  if (response.status < 200 || response.status >= 300 || response.status === 204 || response.status === 205)
    return null;
  const disposition = header(response.headers, 'content-disposition') ?? '';
  const attachment = /^\s*attachment\b/i.test(disposition);
  const askedAsDownload = !Object.keys(response.requestHeaders).some(
    (name) => name.toLowerCase() === 'accept',
  );
  const type = (header(response.headers, 'content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const shown = type === '' || RENDERED.some((pattern) => pattern.test(type));
  if (!attachment && !askedAsDownload && shown) return null;
  const length = Number(header(response.headers, 'content-length'));
  return {
    name: dispositionName(disposition) || urlName(response.url) || 'download',
    size: Number.isFinite(length) && length >= 0 ? length : undefined,
  };
}
