/**
 * The gateway's side of the vault, at the one point every agent call passes (the GatewayService):
 * hands each call its look at the vault (a VaultSnapshot: the fill of a `browser_type {secret}`, the
 * `secret_in_url` refusal, the scrubbing of results, errors and the arguments the audit keeps), and
 * takes every stored value, in every form it knows, out of log lines.
 */
import type { SecretFill } from '../../protocol/index.js';
import type { Logger, LogFields } from '../../log/logger.js';
import type { Vault } from './vault.js';
import { VaultSnapshot } from './vault-snapshot.js';

export class SecretGuard {
  private last: VaultSnapshot | null = null;

  constructor(private readonly vault: Vault) {}

  /**
   * The vault as it stands now: one `stat` of its file, never a cached answer of some age, so a secret
   * stored a moment ago is in the very next snapshot. The matcher is built again only when the vault
   * changed. Throws `internal_error` when the vault cannot be read (fail closed).
   */
  snapshot(): VaultSnapshot {
    const contents = this.vault.read();
    if (this.last?.contents !== contents) this.last = new VaultSnapshot(contents);
    return this.last;
  }

  fillFor(name: string): SecretFill {
    return this.vault.resolve(name);
  }

  /** A logger that writes what `log` would, with every secret taken out of messages and fields. */
  scrubLogs(log: Logger): Logger {
    const clean = (message: string, fields?: LogFields): [string, LogFields | undefined] => {
      let snapshot: VaultSnapshot;
      try {
        snapshot = this.snapshot();
      } catch {
        // The vault cannot be read: say nothing that could hold a value rather than nothing at all.
        return [message.replace(/\S{4,}/g, '…'), undefined];
      }
      const { matcher } = snapshot;
      return matcher.empty ? [message, fields] : [matcher.scrub(message), matcher.scrubDeep(fields)];
    };
    return {
      debug: (message, fields) => log.debug(...clean(message, fields)),
      info: (message, fields) => log.info(...clean(message, fields)),
      warn: (message, fields) => log.warn(...clean(message, fields)),
      error: (message, fields) => log.error(...clean(message, fields)),
    };
  }
}
