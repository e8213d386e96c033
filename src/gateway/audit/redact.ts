/**
 * What of a tool call's arguments may be kept in the audit log. Typed text is never stored (it may be
 * a password), and neither is a character pressed with `browser_press`: an agent may enter a password
 * key by key, and the gateway cannot cheaply tell which field has the focus, so every printable key is
 * redacted and only named keys (Enter, Tab, arrows, …) and modifiers are kept. URLs lose their
 * credentials, every query or fragment value that looks like a token, key or signature, and every path
 * segment that looks like one, because agents open links such as `?access_token=…` or `/login/<token>`
 * (magic links, webhooks) and the log outlives them.
 */
import { KEY_MODIFIERS, parseKeyCombo } from '../../protocol/index.js';

const MODIFIER_SET: ReadonlySet<string> = new Set(KEY_MODIFIERS);

/**
 * A named key (`Enter`, `Control+F2`) is kept; a character is not, nor a combination ending in one,
 * written as it is (`a`, `Control+a`) or under an alias (` ` is the space key).
 */
function pressedKey(value: unknown): string {
  if (typeof value !== 'string') return REDACTED;
  const combo = parseKeyCombo(value);
  const last = value.endsWith('++') ? '+' : (value.split('+').at(-1) ?? '');
  return combo && [...combo.key].length > 1 && [...last].length > 1 ? value : REDACTED;
}

/** Replaces every secret value. Fixed text, so the log reveals neither content nor length. */
export const REDACTED = '[redacted]';

/** Parts of parameter names that carry secrets in the wild (OAuth, signed URLs, API keys, sessions). */
const SECRET_NAME_PART =
  /(token|secret|passw|auth|session|signature|credential|ticket|bearer|jwt|apikey|private)/i;
/** Whole name segments (`client_id` → `client`, `id`) that are secrets only as a segment of their own. */
const SECRET_SEGMENTS = new Set([
  'key',
  'pwd',
  'pass',
  'sid',
  'sig',
  'code',
  'otp',
  'nonce',
  'state',
  'hash',
]);

function isSecretName(name: string): boolean {
  if (SECRET_NAME_PART.test(name)) return true;
  const segments = name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/);
  return segments.some((segment) => SECRET_SEGMENTS.has(segment));
}

/** Argument keys whose string values are secret whatever the tool (defence in depth). */
const SECRET_ARGUMENT = /^(text|prompt_text|password|token|secret|api_?key|authorization|cookie)$/i;

/**
 * A value that looks machine-made rather than human: long, with no spaces, mixing letters and digits
 * (hex, base64, JWT). Words such as `search=shoes` or `page=2` are kept.
 */
export function looksLikeToken(value: string): boolean {
  if (value.length < 16 || /\s/.test(value)) return false;
  return /[A-Za-z]/.test(value) && /\d/.test(value);
}

function redactParams(params: URLSearchParams): boolean {
  let changed = false;
  for (const [name, value] of [...params]) {
    if (value.length > 0 && (isSecretName(name) || looksLikeToken(value))) {
      params.set(name, REDACTED);
      changed = true;
    }
  }
  return changed;
}

/** The URL with user:password, secret-looking query values and secret-looking fragment params removed. */
export function redactUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not a URL the browser would open either; keep only its first characters and never a token.
    return looksLikeToken(raw) ? REDACTED : raw.slice(0, 200);
  }
  if (url.username || url.password) {
    url.username = '';
    url.password = '';
  }
  const path = redactPath(url);
  const query = new URLSearchParams(url.search);
  if (redactParams(query)) url.search = query.toString();
  if (url.hash.length > 1) {
    const fragment = url.hash.slice(1);
    if (fragment.includes('=')) {
      const params = new URLSearchParams(fragment);
      if (redactParams(params)) url.hash = params.toString();
    } else if (looksLikeToken(fragment)) url.hash = REDACTED;
  }
  // Built by hand when a segment went: setting pathname would percent-encode the marker's brackets.
  return path === null ? url.toString() : `${url.origin}${path}${url.search}${url.hash}`;
}

/** The http(s) URL's path with token-like segments replaced, or null when none is. */
function redactPath(url: URL): string | null {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  let changed = false;
  const segments = url.pathname.split('/').map((segment) => {
    let decoded = segment;
    try {
      decoded = decodeURIComponent(segment);
    } catch {
      // A malformed escape: judge the raw text.
    }
    if (!looksLikeToken(decoded)) return segment;
    changed = true;
    return REDACTED;
  });
  return changed ? segments.join('/') : null;
}

/** A copy of the arguments fit for the audit log. */
export function redactArguments(tool: string, args: unknown): Record<string, unknown> {
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    if (tool === 'browser_type' && key === 'text') out[key] = REDACTED;
    else if (tool === 'browser_press' && key === 'key') out[key] = pressedKey(value);
    else if (tool === 'browser_press' && key === 'modifiers' && Array.isArray(value))
      out[key] = value.filter((item) => MODIFIER_SET.has(String(item)));
    else if (SECRET_ARGUMENT.test(key)) out[key] = REDACTED;
    else if (key === 'url' && typeof value === 'string') out[key] = redactUrl(value);
    else if (typeof value === 'string')
      out[key] = looksLikeToken(value) && value.length > 64 ? REDACTED : value.slice(0, 500);
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null) out[key] = value;
    else out[key] = '[object]';
  }
  return out;
}

/** `scheme://host[:port]` of an http(s) URL, else null. */
export function originOf(url: unknown): string | null {
  if (typeof url !== 'string') return null;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}
