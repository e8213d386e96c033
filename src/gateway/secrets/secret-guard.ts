/**
 * The gateway's side of the vault, at the one point every agent call passes (the GatewayService):
 * resolves a `browser_type {secret}` to its fill, refuses a navigation whose URL carries a stored value
 * (`secret_in_url`, before anything is sent), and takes every stored value, in every form it knows, out
 * of what leaves: results, errors, the arguments the audit keeps, and log lines.
 */
import { TabgateError, type SecretFill } from '../../protocol/index.js';
import type { Logger, LogFields } from '../../log/logger.js';
import { SecretMatcher, urlCarries } from './secret-forms.js';
import type { Vault } from './vault.js';

export class SecretGuard {
  private matcherOf: { secrets: readonly SecretFill[]; matcher: SecretMatcher } | null = null;

  constructor(private readonly vault: Vault) {}

  /** Whether the vault holds anything to look for. */
  active(): boolean {
    return this.vault.all().length > 0;
  }

  fillFor(name: string): SecretFill {
    return this.vault.resolve(name);
  }

  /** `secret_in_url` for a navigation to a URL that carries any stored secret, in any form. */
  checkArguments(tool: string, raw: unknown): void {
    if (tool !== 'browser_navigate' || typeof raw !== 'object' || raw === null) return;
    const url = (raw as { url?: unknown }).url;
    if (typeof url !== 'string') return;
    const secrets = this.vault.all();
    if (secrets.length === 0) return;
    const name = urlCarries(url, secrets);
    if (name !== null) {
      throw new TabgateError(
        'secret_in_url',
        `That URL carries the value of the vault secret ${name}; it was not opened.`,
      );
    }
  }

  scrub<T>(value: T): T {
    const matcher = this.matcher();
    return matcher.empty ? value : matcher.scrubDeep(value);
  }

  /** The error itself, or the same failure with every secret taken out of its message. */
  scrubError(error: unknown): unknown {
    if (!(error instanceof TabgateError)) return error;
    const matcher = this.matcher();
    if (matcher.empty || matcher.find(error.message) === null) return error;
    return new TabgateError(error.code, matcher.scrub(error.message), matcher.scrubDeep(error.details));
  }

  /** A logger that writes what `log` would, with every secret taken out of messages and fields. */
  scrubLogs(log: Logger): Logger {
    const clean = (message: string, fields?: LogFields): [string, LogFields | undefined] => {
      let matcher: SecretMatcher;
      try {
        matcher = this.matcher();
      } catch {
        // The vault cannot be read: say nothing that could hold a value rather than nothing at all.
        return [message.replace(/\S{4,}/g, '…'), undefined];
      }
      return matcher.empty ? [message, fields] : [matcher.scrub(message), matcher.scrubDeep(fields)];
    };
    return {
      debug: (message, fields) => log.debug(...clean(message, fields)),
      info: (message, fields) => log.info(...clean(message, fields)),
      warn: (message, fields) => log.warn(...clean(message, fields)),
      error: (message, fields) => log.error(...clean(message, fields)),
    };
  }

  private matcher(): SecretMatcher {
    const secrets = this.vault.all();
    if (this.matcherOf?.secrets !== secrets) {
      this.matcherOf = { secrets, matcher: new SecretMatcher(secrets) };
    }
    return this.matcherOf.matcher;
  }
}
