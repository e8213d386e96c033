/** What a cluster node answers when its Redis cannot: a typed refusal that says nothing was sent. */
import { TabgateError } from '../../protocol/index.js';
import type { RedisLink } from './redis-link.js';

/** Inbox streams are trimmed near this many entries (`XADD MAXLEN ~`). */
export const INBOX_MAXLEN = '10000';

export function unavailable(what: string): TabgateError {
  return new TabgateError(
    'cluster_unavailable',
    `this gateway cannot reach its cluster's Redis; ${what} was not sent to any browser`,
  );
}

/** Runs a script whose failure the caller must see as `cluster_unavailable`. */
export async function runOrRefuse(
  link: RedisLink,
  what: string,
  source: string,
  keys: string[],
  args: string[],
  readOnly = false,
): Promise<unknown> {
  try {
    return await (readOnly ? link.runRead(source, keys, args) : link.run(source, keys, args));
  } catch {
    throw unavailable(what);
  }
}
