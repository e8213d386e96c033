/**
 * One look at the vault, which a tool call takes once and carries through its checks: the fill of a
 * `browser_type {secret}`, the `secret_in_url` refusal, and taking every stored value, in every form,
 * out of what leaves. Reading the vault costs a `stat` of its file; a call that read it at each of
 * these steps paid for several, where one is enough.
 */
import { TabgateError, type SecretFill } from '../../protocol/index.js';
import { SecretMatcher, urlCarries } from './secret-forms.js';
import { resolveFill, type VaultContents } from './vault.js';

export class VaultSnapshot {
  readonly matcher: SecretMatcher;

  constructor(readonly contents: VaultContents) {
    this.matcher = new SecretMatcher(contents.all);
  }

  /** Whether the vault held anything to look for. */
  get active(): boolean {
    return !this.matcher.empty;
  }

  /** The fill a `browser_type {secret}` names; `unknown_secret` when the vault has no such entry. */
  fillFor(name: string): SecretFill {
    return resolveFill(this.contents, name);
  }

  /** `secret_in_url` for a navigation to a URL that carries any stored secret, in any form. */
  checkArguments(tool: string, raw: unknown): void {
    if (tool !== 'browser_navigate' || typeof raw !== 'object' || raw === null) return;
    const url = (raw as { url?: unknown }).url;
    if (typeof url !== 'string' || this.contents.all.length === 0) return;
    const name = urlCarries(url, this.contents.all);
    if (name !== null) {
      throw new TabgateError(
        'secret_in_url',
        `That URL carries the value of the vault secret ${name}; it was not opened.`,
      );
    }
  }

  scrub<T>(value: T): T {
    return this.matcher.empty ? value : this.matcher.scrubDeep(value);
  }

  /** The error itself, or the same failure with every secret taken out of its message. */
  scrubError(error: unknown): unknown {
    if (!(error instanceof TabgateError)) return error;
    const matcher = this.matcher;
    if (matcher.empty || matcher.find(error.message) === null) return error;
    return new TabgateError(error.code, matcher.scrub(error.message), matcher.scrubDeep(error.details));
  }
}
