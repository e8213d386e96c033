/**
 * A PostgreSQL that cannot be reached is `cluster_unavailable` (503) for the call that needed it, at
 * once, never a 500: the gateway is fine and reconnects by itself once the database is back. Other
 * errors (a constraint, a bug) stay what they are.
 */
import { TabgateError } from '../../../protocol/index.js';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EPIPE',
  'EAI_AGAIN',
]);
/** SQLSTATEs of a server going or gone: admin or crash shutdown, not accepting connections, full. */
const GONE_STATES = new Set(['57P01', '57P02', '57P03', '53300']);

export function isConnectionError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  // node-postgres' own connection errors ("Connection terminated", "timeout exceeded when trying to
  // connect") carry no code at all.
  if (code === undefined) return /connect|terminated|closed|timeout/i.test(error.message);
  if (typeof code !== 'string') return false;
  return NETWORK_CODES.has(code) || GONE_STATES.has(code) || code.startsWith('08');
}

const unavailable = () =>
  new TabgateError(
    'cluster_unavailable',
    'The shared store (PostgreSQL) cannot be reached right now; nothing was stored. Retry shortly.',
  );

/** The same methods, each turning a lost database into `cluster_unavailable`. */
export function guarded<T extends object>(rows: T): T {
  const out: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(rows)) {
    const call = method as (...args: unknown[]) => Promise<unknown>;
    out[name] = (...args: unknown[]) =>
      call(...args).catch((error: unknown) => {
        throw isConnectionError(error) ? unavailable() : error;
      });
  }
  return out as T;
}
