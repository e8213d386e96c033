/**
 * The shapes a secret's value can take in text: as it is, base64 (standard, unpadded, URL-safe), hex
 * (either case) and percent-encoded (as a URL component or a form field, either hex case). Outputs are
 * searched for all of them, so a page that echoes a filled value, or puts it in a link, cannot pass it
 * to the agent in a wrapper. Other transformations (reversed, split, a base64 of a longer text that
 * contains the value at an odd offset) are not recognised; docs/secrets.md says so.
 */
import type { SecretFill } from '../../protocol/index.js';

export type KnownSecret = Pick<SecretFill, 'name' | 'value'>;

export function formsOf(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const base64 = bytes.toString('base64');
  const percent = encodeURIComponent(value);
  const form = new URLSearchParams([['', value]]).toString().slice(1);
  const hex = bytes.toString('hex');
  const lowerEscapes = (text: string) => text.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase());
  const forms = new Set([
    value,
    base64,
    base64.replace(/=+$/, ''),
    bytes.toString('base64url'),
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

/** The marker that stands for a secret wherever its value would have been. */
export const markerOf = (name: string) => `«secret:${name}»`;

export class SecretMatcher {
  private readonly forms: { name: string; form: string }[];

  constructor(secrets: readonly KnownSecret[]) {
    this.forms = secrets
      .flatMap(({ name, value }) => formsOf(value).map((form) => ({ name, form })))
      .sort((a, b) => b.form.length - a.form.length);
  }

  get empty(): boolean {
    return this.forms.length === 0;
  }

  /** The name of a secret whose value (in any form) is in `text`. */
  find(text: string): string | null {
    for (const { name, form } of this.forms) if (text.includes(form)) return name;
    return null;
  }

  /** `text` with every form of every secret replaced by its marker. */
  scrub(text: string): string {
    let out = text;
    for (const { name, form } of this.forms)
      if (out.includes(form)) out = out.replaceAll(form, markerOf(name));
    return out;
  }

  /** A copy of a JSON-like value with every string scrubbed; the value itself when nothing matched. */
  scrubDeep<T>(value: T): T {
    if (typeof value === 'string') return this.scrub(value) as T;
    if (Array.isArray(value)) {
      let changed = false;
      const out = value.map((item: unknown) => {
        const next = this.scrubDeep(item);
        if (next !== item) changed = true;
        return next;
      });
      return (changed ? out : value) as T;
    }
    if (typeof value === 'object' && value !== null) {
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
        const next = this.scrubDeep(item);
        if (next !== item) changed = true;
        out[key] = next;
      }
      return (changed ? out : value) as T;
    }
    return value;
  }
}

/**
 * Whether a URL carries a secret: searched as written, case-folded (hex and escapes in any case) and
 * percent-decoded up to three times (an escape of an escape), with `+` also read as a space.
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
