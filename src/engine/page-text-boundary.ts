/**
 * What came from the page is marked as such: each answer wraps the page's text between an opening and a
 * closing line that carry a fresh random nonce (128 bits, base64url) and the frame's origin, so text a page writes
 * cannot pass itself off as tabgate's own words or close the boundary early. This helps a model tell
 * data from instructions; it is not a security boundary (the site grants are).
 */
export interface Boundary {
  open: string;
  close: string;
}

const NONCE_BYTES = 16;
const IMITATION = /<(\/?page-text)/gi;

export function newBoundary(origin: string): Boundary {
  const bytes = new Uint8Array(NONCE_BYTES);
  crypto.getRandomValues(bytes);
  // base64url: 22 characters for 128 bits, paid twice in every answer.
  const nonce = btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, '-')
    .replace(/\//g, '_')
    .replace(/=+$/, '');
  return {
    open: `<page-text nonce="${nonce}" origin="${origin}">`,
    close: `</page-text nonce="${nonce}">`,
  };
}

/**
 * Page text that imitates a boundary line loses its `<` to a look-alike `‹`. One UTF-16 unit for one, so
 * offsets and control spans measured on the text stay valid.
 */
export function escapeBoundaries(text: string): string {
  return text.replace(IMITATION, '‹$1');
}

/** The origin a boundary names: `https://example.com`, or the URL itself where it has none (about:blank). */
export function originOf(url: string): string {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? url.slice(0, 100) : origin;
  } catch {
    return url.slice(0, 100);
  }
}
