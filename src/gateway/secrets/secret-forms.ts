/**
 * Searching outputs for the vault's values in every form they can take (src/engine/secret-forms.ts, the
 * one matching code the network guards share), and replacing each with its marker, so a page that
 * echoes a filled value, or puts it in a link, cannot pass it to the agent in a wrapper.
 */
import { formsOf, type KnownSecret } from '../../engine/secret-forms.js';

export { formsOf, urlCarries, type KnownSecret } from '../../engine/secret-forms.js';

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
