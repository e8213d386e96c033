/**
 * The owner's Stop reaches every node: the session's commands end for their callers wherever they wait,
 * as `session_stopped_by_owner` as on one gateway, and each controller gets a cancel for what it was
 * sent, after the command.
 */
import { DEFERRED_CANCEL_CAP } from '../../protocol/index.js';
import type { CallerWaiters } from './caller-waiters.js';
import { sessionKey } from './keys.js';
import type { LocalLanes } from './local-lanes.js';
import * as lua from './lua.js';
import type { RedisLink } from './redis-link.js';
import { INBOX_MAXLEN } from './redis-failures.js';

export interface SessionCancelOptions {
  link: RedisLink;
  nodeId: string;
  lanes: LocalLanes;
  waiters: CallerWaiters;
}

/** Returns how many of the ended commands were waited on by other nodes. */
export async function cancelSessionCommands(o: SessionCancelOptions, sessionId: string): Promise<number> {
  const [frames, cancelled, remote] = (await o.link.run(
    lua.CANCEL_SESSION,
    [sessionKey(sessionId)],
    [o.nodeId, INBOX_MAXLEN, String(DEFERRED_CANCEL_CAP)],
  )) as [string[], string[], number];
  for (let i = 0; i + 1 < frames.length; i += 2) {
    const lane = o.lanes.get(frames[i] as string);
    if (lane) o.lanes.queueCancel(lane, frames[i + 1] as string);
  }
  for (const id of cancelled) o.waiters.settle(id, { kind: 'stopped' });
  return Number(remote);
}
