/**
 * The API key each keep-alive connection has already proved. Hashing the presented key for the
 * constant-time check is the largest single cost of a small request, so a later request on the same
 * connection that presents the very same Authorization header is matched against the remembered one,
 * still in constant time, and the hash is skipped. Only the API key is remembered: a pairing token can
 * be revoked at any moment, so it is checked every time. A connection forgets when it closes.
 */
import type { Caller } from '../service.js';
import { sameSecret } from './api-key.js';

export class ProvenConnections {
  private readonly proven = new WeakMap<object, { header: string; caller: Caller }>();

  /** The caller this connection proved with exactly this header before, or null. */
  recall(connection: object, header: string | undefined): Caller | null {
    const memo = this.proven.get(connection);
    return memo && header !== undefined && sameSecret(header, memo.header) ? memo.caller : null;
  }

  remember(connection: object, header: string | undefined, caller: Caller): void {
    if (header !== undefined && caller.credential === 'api_key')
      this.proven.set(connection, { header, caller });
  }
}
