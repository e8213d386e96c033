/**
 * The shapes a vault secret's value can take in text, and whether a URL or a request body carries one:
 * the one matching code of the gateway (outputs, navigations), the engine's network guard and the
 * extension's (which runs in the user's browser, so nothing here needs Node).
 *
 * Forms: as it is, base64 (standard, unpadded, URL-safe), hex (either case) and percent-encoded (as a
 * URL component or a form field, either hex case). Other transformations (reversed, split, a base64 of
 * a longer text that contains the value at an odd offset) are not recognised; docs/secrets.md says so.
 */
import type { SecretFill } from '../protocol/index.js';

export type KnownSecret = Pick<SecretFill, 'name' | 'value'>;

function base64Of(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function formsOf(value: string): string[] {
  const bytes = new TextEncoder().encode(value);
  const base64 = base64Of(bytes);
  const base64url = base64.replace(/=+$/, '').replaceAll('+', '-').replaceAll('/', '_');
  const percent = encodeURIComponent(value);
  const form = new URLSearchParams([['', value]]).toString().slice(1);
  const hex = [...bytes].map((byte) => byte.toString(16).padStart(2, '0')).join('');
  const lowerEscapes = (text: string) => text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
  const forms = new Set([
    value,
    base64,
    base64.replace(/=+$/, ''),
    base64url,
    hex,
    hex.toUpperCase(),
    percent,
    lowerEscapes(percent),
    form,
    lowerEscapes(form),
  ]);
  // Longest first, so a replacement never leaves part of a longer form behind.
  return [...forms].filter((f) => f.length > 0).sort((a, b) => b.length - a.length);
}

const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|(["\\/bfnrt]))/g;
const SHORT_ESCAPES: Record<string, string> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };

/**
 * A text with its JSON string escapes read (`\"`, `\\`, `\/`, `\n`, `\u00e9`): a JSON body writes a
 * value holding a quote or a backslash escaped, and many encoders (Python's `json.dumps`, PHP's
 * `json_encode`) escape every non-ASCII character or `/` too. Surrogate pairs come out as the two code
 * units they name, which is the JavaScript string of the character.
 */
function withJsonEscapesRead(text: string): string {
  return text.replace(JSON_ESCAPE, (_m, hex: string | undefined, short: string | undefined) => {
    if (hex !== undefined) return String.fromCharCode(parseInt(hex, 16));
    const escaped = short ?? '';
    return SHORT_ESCAPES[escaped] ?? escaped;
  });
}

/**
 * Whether a text carries a secret, and which: searched as written, case-folded (hex and escapes in any
 * case), percent-decoded up to three times (an escape of an escape), with `+` also read as a space, and
 * with JSON string escapes read. Made for URLs; a form-encoded or JSON request body reads the same way.
 */
export function urlCarries(url: string, secrets: readonly KnownSecret[]): string | null {
  const readings = new Set<string>([url]);
  let current = url;
  for (let i = 0; i < 3; i++) {
    let decoded: string;
    try {
      decoded = decodeURIComponent(current);
    } catch {
      decoded = current.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) =>
        String.fromCharCode(parseInt(hex, 16)),
      );
    }
    if (decoded === current) break;
    readings.add(decoded);
    current = decoded;
  }
  for (const reading of [...readings]) readings.add(reading.replaceAll('+', ' '));
  for (const reading of [...readings]) if (reading.includes('\\')) readings.add(withJsonEscapesRead(reading));
  for (const { name, value } of secrets) {
    for (const form of formsOf(value)) {
      const folded = form.toLowerCase();
      for (const reading of readings) {
        if (reading.includes(form) || reading.toLowerCase().includes(folded)) return name;
      }
    }
  }
  return null;
}

/** The origin of a URL, or null for one that has none (`data:`, unparseable). */
function originOf(url: string): string | null {
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * The filled secret a request would carry where it may not go, or null.
 * - In its URL: a user name may travel in its own origin's URLs (a profile at /octocat, an account page
 *   with ?user=), as sites do after every sign-in; every other kind, and a user name to any other
 *   origin, never.
 * - In its body: any kind may be sent to its own origin (the sign-in form posts it there), none to
 *   another.
 */
export function secretInRequest(
  request: { url: string; body?: string | undefined },
  filled: readonly SecretFill[],
): { name: string; where: 'url' | 'body' } | null {
  if (filled.length === 0) return null;
  const origin = originOf(request.url);
  const inUrl = filled.filter((fill) => !(fill.field === 'username' && fill.origin === origin));
  const byUrl = inUrl.length === 0 ? null : urlCarries(request.url, inUrl);
  if (byUrl !== null) return { name: byUrl, where: 'url' };
  if (!request.body) return null;
  const inBody = filled.filter((fill) => fill.origin !== origin);
  const byBody = inBody.length === 0 ? null : urlCarries(request.body, inBody);
  return byBody === null ? null : { name: byBody, where: 'body' };
}

/** What CDP tells of a request's body (`Network.Request`): as text, or as base64 byte entries. */
export interface RequestBody {
  postData?: string;
  postDataEntries?: { bytes?: string }[];
}

/**
 * A paused request's body as text, for the secret check: what Chromium put in the event (bytes it holds
 * in memory; a body streamed from a Blob or a file is not there, and is not searched).
 */
export function bodyText(request: RequestBody): string | undefined {
  if (typeof request.postData === 'string') return request.postData;
  const entries = request.postDataEntries ?? [];
  if (entries.length === 0) return undefined;
  const decoder = new TextDecoder();
  return entries
    .map(({ bytes }) => {
      if (!bytes) return '';
      try {
        return decoder.decode(Uint8Array.from(atob(bytes), (c) => c.charCodeAt(0)));
      } catch {
        return '';
      }
    })
    .join('');
}
