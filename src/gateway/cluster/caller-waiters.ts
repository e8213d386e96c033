/**
 * The calls this node's agents are waiting on, one single-shot waiter per command: the first of result,
 * timeout, cancel or refusal settles it, exactly once, wherever the outcome came from (this node, or
 * another through the inbox). A timeout or an abort is decided here at once; its cancel follows
 * through Redis.
 */
import { DEFERRED_CANCEL_CAP, encodeFrame, FRAME_METHODS, TabgateError } from '../../protocol/index.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../../log/logger.js';
import type { CommandOutcome } from '../broker/commands.js';
import { DeadlineQueue } from '../broker/deadlines.js';
import { commandError } from '../broker/command-error.js';
import { stoppedByOwner } from '../stopped-by-owner.js';
import { nodeKey, type LaneKeys } from './keys.js';
import type { LocalLanes } from './local-lanes.js';
import * as lua from './lua.js';
import type { RedisLink } from './redis-link.js';
import { INBOX_MAXLEN } from './redis-failures.js';

/**
 * A command queued to another node is looked after from this age on: once that node's lease is gone,
 * one it never sent is given up at the next sweep. Short, so that a call queued to a node in the last
 * moments of its lease is refused as soon as the lease is, not a second later; the sweep asks Redis
 * once per owner node, not once per command.
 */
const ABANDON_AFTER_MS = 100;

/**
 * Besides the embedded broker's outcomes: the owner node could not send it (gone, or the socket moved),
 * or the owner's Stop, taken by another node, ended it.
 */
export type Outcome = CommandOutcome | { kind: 'unavailable' } | { kind: 'stopped' };

export interface Waiter {
  keys: LaneKeys;
  sessionId: string;
  action: string;
  toolCallId: string | null;
  /** The node the command was queued to; null when this node holds the socket. */
  owner: string | null;
  queuedAt: number;
  settle(outcome: Outcome): void;
}

export interface CallerWaitersOptions {
  link: RedisLink;
  nodeId: string;
  lanes: LocalLanes;
  clock: Clock;
  log: Logger;
  commandTimeoutMs: number;
}

export class CallerWaiters {
  private readonly waiters = new Map<string, Waiter>();
  private readonly deadlines: DeadlineQueue;
  /** The approval each command's deadline was moved for: one approval moves it once. */
  private readonly approvalOf = new Map<string, string>();

  constructor(private readonly o: CallerWaitersOptions) {
    this.deadlines = new DeadlineQueue(o.commandTimeoutMs, (id) => this.endEarly(id, 'timeout'), o.clock);
  }

  get(commandId: string): Waiter | undefined {
    return this.waiters.get(commandId);
  }

  /** Waits from now, under the command deadline. */
  add(commandId: string, waiter: Waiter): void {
    this.waiters.set(commandId, waiter);
    this.deadlines.add(commandId);
  }

  /** Stops waiting without an outcome (the caller was refused); false when it had already settled. */
  drop(commandId: string): boolean {
    if (!this.waiters.delete(commandId)) return false;
    this.deadlines.remove(commandId);
    this.approvalOf.delete(commandId);
    return true;
  }

  /** Ends the deadline of a waiter that is settling. */
  forgetDeadline(commandId: string): void {
    this.deadlines.remove(commandId);
    this.approvalOf.delete(commandId);
  }

  /**
   * The person decides now, not the command's clock (as in the embedded broker): each command of `tool`
   * in the session that waits here has its deadline moved by the approval's whole window.
   */
  awaitingApproval(sessionId: string, tool: string, approvalId: string, expiresAt: number): void {
    const window = expiresAt - this.o.clock.now();
    for (const [commandId, waiter] of this.waiters) {
      if (waiter.sessionId !== sessionId || waiter.action !== tool) continue;
      if (this.approvalOf.get(commandId) === approvalId) continue;
      if (!this.deadlines.postpone(commandId, window)) continue;
      this.approvalOf.set(commandId, approvalId);
      this.o.log.info('command waits for approval', {
        session_id: sessionId,
        approval_id: approvalId,
        command_id: commandId,
      });
    }
  }

  settle(commandId: string, outcome: Outcome): void {
    const waiter = this.waiters.get(commandId);
    if (!waiter) return;
    this.waiters.delete(commandId);
    waiter.settle(outcome);
  }

  /** Every caller gets `cancelled` (this node leaves the cluster). */
  cancelAll(): void {
    for (const id of [...this.waiters.keys()]) this.settle(id, { kind: 'cancelled' });
    this.deadlines.clear();
    this.approvalOf.clear();
  }

  /** The command was marked sent but never reached the socket: end it here and in Redis. */
  finishLocal(commandId: string, outcome: Outcome): void {
    const waiter = this.waiters.get(commandId);
    if (waiter)
      void this.o.link
        .run(
          lua.FINISH,
          [waiter.keys.pend],
          [commandId, this.o.nodeId, '0', 'cancelled', '0', 'null', INBOX_MAXLEN],
        )
        .catch(() => undefined);
    this.settle(commandId, outcome);
  }

  /** Timeout or caller abort: the outcome is local and immediate; the cancel follows through Redis. */
  endEarly(commandId: string, kind: 'timeout' | 'cancelled'): void {
    const waiter = this.waiters.get(commandId);
    if (!waiter) return;
    this.settle(commandId, { kind });
    const { keys } = waiter;
    const frame = encodeFrame({
      method: FRAME_METHODS.cancel,
      params: { command_id: commandId, tool_call_id: waiter.toolCallId },
    });
    this.o.link
      .run(
        lua.END_EARLY,
        [keys.lane, keys.pend, keys.defer],
        [commandId, frame, INBOX_MAXLEN, this.o.nodeId, keys.h, String(DEFERRED_CANCEL_CAP)],
      )
      .then((where) => {
        const lane = this.o.lanes.get(keys.h);
        if (where === 'local' && lane) this.o.lanes.queueCancel(lane, frame);
      })
      .catch((error: unknown) =>
        this.o.log.warn('cluster cancel not recorded', { reason: (error as Error).message }),
      );
  }

  /** Commands queued to an owner whose lease has gone and that it never sent end now, not at their deadline. */
  abandonSweep(): void {
    const now = performance.now();
    const byOwner = new Map<string, [string, Waiter][]>();
    for (const [id, waiter] of this.waiters) {
      if (waiter.owner === null || now - waiter.queuedAt < ABANDON_AFTER_MS) continue;
      const list = byOwner.get(waiter.owner) ?? [];
      list.push([id, waiter]);
      byOwner.set(waiter.owner, list);
    }
    for (const [owner, queued] of byOwner) {
      this.o.link.command
        .sendCommand(['EXISTS', nodeKey(owner)])
        .then((alive: unknown) => {
          if (alive !== 0) return;
          // The script checks the lease again, with the command's state, in one step.
          for (const [id, waiter] of queued)
            this.o.link
              .run(lua.ABANDON, [waiter.keys.pend], [id, owner])
              .then((gone) => {
                if (gone === 1) this.settle(id, { kind: 'unavailable' });
              })
              .catch(() => undefined);
        })
        .catch(() => undefined);
    }
  }

  /** The approval the command waits for, as the node that asked told this one. */
  approvalOfCommand(commandId: string): string | undefined {
    return this.approvalOf.get(commandId);
  }

  errorFor(commandId: string, outcome: Exclude<Outcome, { kind: 'ok' }>, approvalId?: string): TabgateError {
    // The words one gateway gives the calls its Stop ends, whichever node took the Stop.
    if (outcome.kind === 'stopped') return stoppedByOwner('this call was cancelled');
    if (outcome.kind !== 'unavailable')
      return commandError(commandId, outcome, this.o.commandTimeoutMs, approvalId);
    return new TabgateError(
      'controller_unavailable',
      `the gateway holding the bound browser controller could not send command '${commandId}'; it was not run`,
    );
  }
}
