/**
 * The owner's Stop reaches every node: the session's commands end for their callers wherever they wait,
 * as `session_stopped_by_owner` as on one gateway, and each controller gets a cancel for what it was
 * sent, after the command. A stop marker, set in the same script, refuses every later dispatch of the
 * session on any node until Resume clears it: a call that read its session just before the Stop was
 * stored cannot slip past it.
 */
import { randomBytes } from 'node:crypto';
import { DEFERRED_CANCEL_CAP } from '../../protocol/index.js';
import type { Logger } from '../../log/logger.js';
import type { CallerWaiters } from './caller-waiters.js';
import { sessionKey, stopKey } from './keys.js';
import type { LocalLanes } from './local-lanes.js';
import * as lua from './lua.js';
import type { RedisLink } from './redis-link.js';
import { INBOX_MAXLEN } from './redis-failures.js';
import type { StopFences } from './stop-fences.js';

/**
 * How long a stop marker outlives its Stop when nobody resumes: the stored Stop refuses every call that
 * reads its session afterwards, so the marker only has to outlast a call already past that read; a day
 * is far beyond any call's life, and a session stopped and forgotten leaves no key behind for ever.
 */
export const STOP_MARKER_TTL_MS = 24 * 60 * 60 * 1000;

export interface SessionCancelOptions {
  link: RedisLink;
  nodeId: string;
  lanes: LocalLanes;
  waiters: CallerWaiters;
  fences: StopFences;
  log: Logger;
}

/**
 * Returns how many of the ended commands were waited on by other nodes, once no command of the session
 * can reach a controller any more: every node that had cleared one for its socket has written it, and
 * its cancel after it.
 */
export async function cancelSessionCommands(o: SessionCancelOptions, sessionId: string): Promise<number> {
  const token = randomBytes(12).toString('hex');
  o.fences.open(token);
  let reply: [string[], string[], number, string[]];
  try {
    reply = (await o.link.run(
      lua.CANCEL_SESSION,
      [sessionKey(sessionId), stopKey(sessionId)],
      [o.nodeId, INBOX_MAXLEN, String(DEFERRED_CANCEL_CAP), String(STOP_MARKER_TTL_MS), token],
    )) as [string[], string[], number, string[]];
  } catch (error) {
    await o.fences.wait(token, []);
    throw error;
  }
  const [frames, cancelled, remote, fenced] = reply;
  for (let i = 0; i + 1 < frames.length; i += 2) {
    const lane = o.lanes.get(frames[i] as string);
    if (lane) o.lanes.queueCancel(lane, frames[i + 1] as string);
  }
  for (const id of cancelled) o.waiters.settle(id, { kind: 'stopped' });
  const [, silent] = await Promise.all([o.fences.settleHere(), o.fences.wait(token, fenced)]);
  if (silent.length > 0)
    o.log.warn('the Stop went on without an answer from gateways holding its sockets', {
      session_id: sessionId,
      nodes: silent.join(','),
    });
  return Number(remote);
}

/** Resume: dispatches of the session pass again. Fails (Redis unreachable) rather than resume half-way. */
export async function clearSessionStop(link: RedisLink, sessionId: string): Promise<void> {
  await link.command.sendCommand(['DEL', stopKey(sessionId)]);
}
