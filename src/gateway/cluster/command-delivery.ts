/**
 * The socket side: commands queued to this node's inbox are fenced by `mark-sent` and written to their
 * socket, and each controller's result goes back to its caller, on this node or through its inbox.
 * Sent at most once: only `mark-sent` (or the dispatch itself, when the caller holds the socket) lets a
 * command reach a socket.
 */
import { DEFERRED_CANCEL_CAP, type SecretFill } from '../../protocol/index.js';
import type { Logger } from '../../log/logger.js';
import type { ControllerScope } from '../broker/scope.js';
import type { CallerWaiters, Outcome } from './caller-waiters.js';
import type { InboxEntry } from './inbox-reader.js';
import { laneKeys, laneKeysOf, nodeKey, type LaneKeys } from './keys.js';
import type { LocalLanes } from './local-lanes.js';
import * as lua from './lua.js';
import { LEASE_TTL_MS } from './node-lease.js';
import type { RedisLink } from './redis-link.js';
import { INBOX_MAXLEN } from './redis-failures.js';
import { frameWithSecret } from './secret-ref.js';

export interface CommandDeliveryOptions {
  link: RedisLink;
  nodeId: string;
  lanes: LocalLanes;
  waiters: CallerWaiters;
  log: Logger;
  fills?: (name: string) => SecretFill;
  commandTimeoutMs: number;
}

/** A command sent to a socket here for a caller on another node. */
interface SentForOther {
  keys: LaneKeys;
  caller: string;
  since: number;
}

/**
 * A live caller ends its command by its deadline (END_EARLY), unless the person's approval moved it:
 * past the deadline and a lease's life, a command still tracked here is looked up in Redis, and watched
 * on while it is still pending there.
 */
const RECHECK_AFTER_MS = 2 * LEASE_TTL_MS;

export class CommandDelivery {
  private readonly sentForOthers = new Map<string, SentForOther>();
  private reaping = false;

  constructor(private readonly o: CommandDeliveryOptions) {}

  /**
   * Commands sent here whose caller node has died (kill -9: no cancel will come) are dropped from Redis
   * and cancelled at the controller, once the caller's lease has expired.
   */
  async reapOrphans(): Promise<void> {
    if (this.reaping || this.sentForOthers.size === 0) return;
    this.reaping = true;
    try {
      const now = performance.now();
      const callers = new Set<string>();
      const overdue: [string, SentForOther][] = [];
      for (const [id, sent] of this.sentForOthers) {
        callers.add(sent.caller);
        if (now - sent.since > this.o.commandTimeoutMs + RECHECK_AFTER_MS) overdue.push([id, sent]);
      }
      await Promise.all(
        overdue.map(async ([id, sent]) => {
          const pending: unknown = await this.o.link.command.sendCommand(['HEXISTS', sent.keys.pend, id]);
          if (pending === 0) this.sentForOthers.delete(id);
          else sent.since = now; // Waits for a person: looked at again a deadline later.
        }),
      );
      const alive = new Map<string, boolean>();
      await Promise.all(
        [...callers].map(async (caller) => {
          const found: unknown = await this.o.link.command.sendCommand(['EXISTS', nodeKey(caller)]);
          alive.set(caller, found !== 0);
        }),
      );
      for (const [id, sent] of [...this.sentForOthers]) {
        if (alive.get(sent.caller) !== false) continue;
        this.sentForOthers.delete(id);
        const { keys } = sent;
        const reply = (await this.o.link.run(
          lua.REAP,
          [keys.lane, keys.pend, keys.defer],
          [id, this.o.nodeId, INBOX_MAXLEN, keys.h, String(DEFERRED_CANCEL_CAP)],
        )) as string[];
        const lane = this.o.lanes.get(keys.h);
        if (reply[0] === 'local' && lane) this.o.lanes.queueCancel(lane, reply[1] ?? '');
      }
    } catch (error) {
      this.o.log.debug('cluster orphan sweep failed', { reason: (error as Error).message });
    } finally {
      this.reaping = false;
    }
  }

  /**
   * A command queued to this node: fenced by `mark-sent`, then written. Fences go out in inbox order on
   * one connection and their answers come back in that order, so writes keep the inbox's order without
   * waiting for each other's round trip.
   */
  deliver(entry: InboxEntry): void {
    const { link, nodeId } = this.o;
    const id = entry.id ?? '';
    const keys = laneKeysOf(entry.S ?? '', entry.h ?? '');
    const lane = this.o.lanes.get(keys.h);
    const giveUp = () =>
      link
        .runOnCallPath(lua.FINISH, [keys.pend], [id, nodeId, '1', 'unavailable', '0', 'null', INBOX_MAXLEN])
        .then((where) => {
          if (where === 'local') this.o.waiters.settle(id, { kind: 'unavailable' });
        });
    const frame = frameWithSecret(entry, this.o.fills, this.o.log);
    if (!lane || lane.gen !== entry.gen || frame === null) {
      giveUp().catch(() => undefined);
      return;
    }
    const fence = link.runOnCallPath(lua.MARK_SENT, [keys.lane, keys.pend], [id, entry.gen ?? '', nodeId]);
    lane.chain = lane.chain.then(async () => {
      let marked: unknown;
      try {
        marked = await fence;
      } catch {
        return; // Outcome unknown: never written; the caller's deadline or abandon check ends it.
      }
      if (marked !== 1) {
        await giveUp().catch(() => undefined);
        return;
      }
      try {
        lane.sender(frame);
        if (entry.c) this.sentForOthers.set(id, { keys, caller: entry.c, since: performance.now() });
      } catch (error) {
        this.o.log.warn('controller send failed', { reason: (error as Error).message });
        await link
          .run(lua.FINISH, [keys.pend], [id, nodeId, '0', 'cancelled', '0', 'null', INBOX_MAXLEN])
          .catch(() => undefined);
      }
    });
  }

  /** A controller's result: to its caller here at once, or through Redis to the caller's node. */
  async complete(commandId: string, scope: ControllerScope, ok: boolean, payload: unknown): Promise<boolean> {
    const keys = laneKeys(scope);
    this.sentForOthers.delete(commandId);
    const outcome: Outcome = ok ? { kind: 'ok', result: payload } : { kind: 'rejected', error: payload };
    // The caller waits on this node for this identity's command: its outcome is decided here (the
    // waiter is single-shot) and the reply need not wait for Redis to drop the pending entry. FINISH
    // then only drops it (its caller is this node, so it answers 'local' and forwards nothing): the
    // payload, a page's snapshot or a screenshot, is not copied into Redis for nobody.
    const waiter = this.o.waiters.get(commandId);
    const waitsHere = waiter !== undefined && waiter.keys.h === keys.h;
    const finish = this.o.link.runOnCallPath(
      lua.FINISH,
      [keys.pend],
      [
        commandId,
        this.o.nodeId,
        '0',
        'result',
        ok ? '1' : '0',
        waitsHere ? 'null' : JSON.stringify(payload ?? null),
        INBOX_MAXLEN,
      ],
    );
    if (waitsHere) {
      this.o.waiters.settle(commandId, outcome);
      finish.catch((error: unknown) =>
        this.o.log.warn('cluster result not recorded', { reason: (error as Error).message }),
      );
      return true;
    }
    const where = await finish;
    if (where === 'local') this.o.waiters.settle(commandId, outcome);
    return where !== null;
  }
}
