/**
 * The broker of one cluster node: the same rules as the embedded broker (docs/protocol.md "Identity,
 * lanes and replacement"), with tickets, lanes and pending commands in Redis so that a controller may
 * register on one node, hold its socket on a second and serve a call arriving on a third. What stays on
 * this node: its sockets (and the order of what is written to each), and each of its callers' waiter,
 * which is single-shot, so an outcome reaches a caller exactly once.
 *
 * The parts: tickets and lane reads (lane-lookup), lanes coming and going (lane-membership), the
 * calling node's command path (command-dispatch, caller-waiters), the socket side (command-delivery),
 * and failing closed when Redis forgets or is lost (redis-loss). This class joins them and routes the
 * node's inbox.
 */
import type { SecretFill } from '../../protocol/index.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../../log/logger.js';
import type { BindingObserver } from '../session-binding.js';
import type { ApprovalWaits, DispatchRequest, LaneState } from '../broker/controller-broker.js';
import type { CommandOutcome, FrameSender } from '../broker/commands.js';
import type { ControllerBroker } from '../broker/controller-broker.js';
import type { ControllerScope, LaneQuery } from '../broker/scope.js';
import type { ConsumeOutcome, MintedTicket } from '../broker/tickets.js';
import { CallerWaiters } from './caller-waiters.js';
import { dispatchCommand, type CommandDispatchOptions } from './command-dispatch.js';
import { CommandDelivery } from './command-delivery.js';
import { InboxReader, type InboxEntry } from './inbox-reader.js';
import { LaneCopies } from './lane-copies.js';
import { LaneLookup } from './lane-lookup.js';
import { LaneMembership } from './lane-membership.js';
import { LocalLanes } from './local-lanes.js';
import { NodeLease } from './node-lease.js';
import type { RedisLink } from './redis-link.js';
import { RedisLossGuard } from './redis-loss.js';
import { cancelSessionCommands, clearSessionStop } from './session-cancel.js';
import { StopFences } from './stop-fences.js';
import { sessionKey } from './keys.js';
import * as lua from './lua.js';
import { INBOX_MAXLEN } from './redis-failures.js';

/** How often a caller looks whether a command queued to a vanished owner can be given up. */
const ABANDON_SWEEP_MS = 250;

export interface ClusterBrokerOptions {
  link: RedisLink;
  nodeId: string;
  /** What the lease key holds: lets an operator see which config each node runs. */
  leaseValue: string;
  clock: Clock;
  log: Logger;
  commandTimeoutMs: number;
  bindings?: BindingObserver;
  /**
   * This node's vault: a command queued to this node names its secret, and the value is read here, so
   * no vault value ever passes through Redis. Every node needs the same vault, as the same config.
   */
  fills?: (name: string) => SecretFill;
}

export class ClusterBroker implements ControllerBroker, ApprovalWaits {
  private readonly lanes: LocalLanes;
  private readonly copies: LaneCopies;
  private readonly waiters: CallerWaiters;
  private readonly lookup: LaneLookup;
  private readonly membership: LaneMembership;
  private readonly delivery: CommandDelivery;
  private readonly commands: CommandDispatchOptions;
  private readonly fences: StopFences;
  private readonly loss: RedisLossGuard;
  private readonly lease: NodeLease;
  private reader: InboxReader | null = null;
  private sweep: NodeJS.Timeout | null = null;

  constructor(private readonly o: ClusterBrokerOptions) {
    const { link, nodeId, log } = o;
    this.lanes = new LocalLanes(link);
    this.waiters = new CallerWaiters({
      link,
      nodeId,
      lanes: this.lanes,
      clock: o.clock,
      log,
      commandTimeoutMs: o.commandTimeoutMs,
    });
    this.copies = new LaneCopies();
    this.fences = new StopFences(link, nodeId, this.lanes);
    this.lookup = new LaneLookup(link, nodeId, this.lanes, this.copies);
    this.membership = new LaneMembership({
      link,
      nodeId,
      lanes: this.lanes,
      waiters: this.waiters,
      bindings: o.bindings,
      renewLease: () => this.lease.renew(),
      copies: this.copies,
      fences: this.fences,
    });
    this.delivery = new CommandDelivery({
      link,
      nodeId,
      lanes: this.lanes,
      waiters: this.waiters,
      log,
      fills: o.fills,
      commandTimeoutMs: o.commandTimeoutMs,
    });
    this.commands = {
      link,
      nodeId,
      lanes: this.lanes,
      waiters: this.waiters,
      clock: o.clock,
      log,
      commandTimeoutMs: o.commandTimeoutMs,
      renewLease: () => this.lease.renew(),
      copies: this.copies,
      stillRoutesTo: (keys) => this.lookup.stillRoutesTo(keys),
    };
    this.loss = new RedisLossGuard(link, nodeId, this.lanes, log, this.copies);
    this.lease = new NodeLease(link, nodeId, o.leaseValue, log, this.loss);
  }

  get nodeId(): string {
    return this.o.nodeId;
  }

  /** This node's connections to Redis, for the cluster's other shared state (approvals). */
  get link(): RedisLink {
    return this.o.link;
  }

  async start(): Promise<void> {
    await this.loss.watchRestarts();
    await this.lease.start();
    this.reader = new InboxReader(this.o.link, this.o.nodeId, (entry) => this.onInbox(entry), this.o.log);
    this.sweep = setInterval(() => {
      this.waiters.abandonSweep();
      void this.delivery.reapOrphans();
      this.loss.checkReader(this.reader);
    }, ABANDON_SWEEP_MS);
    this.sweep.unref();
  }

  mintTicket(scope: ControllerScope): Promise<MintedTicket> {
    return this.lookup.mintTicket(scope);
  }

  consumeTicket(ticket: string): Promise<ConsumeOutcome> {
    return this.lookup.consumeTicket(ticket);
  }

  laneState(query: LaneQuery): LaneState {
    return this.lookup.laneState(query);
  }

  lookupLane(query: LaneQuery): Promise<LaneState> {
    return this.lookup.lookupLane(query);
  }

  attach(scope: ControllerScope, owner: object, sender: FrameSender): Promise<void> {
    return this.membership.attach(scope, owner, sender);
  }

  disconnect(scope: ControllerScope, owner: object): Promise<boolean> {
    return this.membership.disconnect(scope, owner);
  }

  detach(scope: ControllerScope, owner: object): Promise<boolean> {
    return this.membership.detach(scope, owner);
  }

  detachSession(sessionId: string): Promise<object[]> {
    return this.membership.detachSession(sessionId);
  }

  detachController(scope: ControllerScope): Promise<object | null> {
    return this.membership.detachController(scope);
  }

  cancelSession(sessionId: string): Promise<number> {
    return cancelSessionCommands({ ...this.commands, fences: this.fences }, sessionId);
  }

  resumeSession(sessionId: string): Promise<void> {
    return clearSessionStop(this.o.link, sessionId);
  }

  dispatch(request: DispatchRequest): Promise<unknown> {
    return dispatchCommand(this.commands, request);
  }

  /**
   * The extension asked, through this node, for the person's approval of a command of the session:
   * its caller may wait on any node, so each node with a caller waiting on the session is told.
   */
  awaitingApproval(sessionId: string, tool: string, approvalId: string, expiresAt: number): void {
    this.waiters.awaitingApproval(sessionId, tool, approvalId, expiresAt);
    this.o.link
      .run(
        lua.AWAIT_APPROVAL,
        [sessionKey(sessionId)],
        [this.o.nodeId, INBOX_MAXLEN, sessionId, tool, approvalId, String(expiresAt)],
      )
      .catch((error: unknown) =>
        this.o.log.warn('the approval wait could not reach other gateways', {
          session_id: sessionId,
          approval_id: approvalId,
          reason: (error as Error).message,
        }),
      );
  }

  complete(commandId: string, scope: ControllerScope, ok: boolean, payload: unknown): Promise<boolean> {
    return this.delivery.complete(commandId, scope, ok, payload);
  }

  /** Graceful leave: the lease goes first, so every node refuses this node's lanes at once. */
  async close(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    this.waiters.cancelAll();
    try {
      await this.lease.stop();
      await this.membership.leave();
    } catch (error) {
      this.o.log.warn('cluster leave incomplete', { reason: (error as Error).message });
    }
    this.lanes.clear();
    this.copies.clear();
    const reader = this.reader?.stop();
    this.o.link.close();
    await reader;
  }

  private onInbox(entry: InboxEntry): void {
    switch (entry.k) {
      case 'command':
        this.delivery.deliver(entry);
        return;
      case 'cancel': {
        const lane = this.lanes.get(entry.h ?? '');
        if (lane) this.lanes.queueCancel(lane, entry.f ?? '');
        return;
      }
      case 'revoke': {
        const lane = this.lanes.get(entry.h ?? '');
        if (!lane || Number(lane.gen) > Number(entry.gen)) return;
        // Replaced: the socket stays open and unrouted, as in the embedded broker. Revoked: closed here,
        // since only this node holds it.
        if (entry.c) this.lanes.letGo(lane, Number(entry.c), 'pairing revoked');
        else this.lanes.delete(entry.h ?? '');
        return;
      }
      case 'result':
        this.waiters.settle(entry.id ?? '', resultOf(entry));
        return;
      case 'cancelled':
        // `r: stop`: the owner's Stop, taken by another node, ended it.
        this.waiters.settle(entry.id ?? '', { kind: entry.r === 'stop' ? 'stopped' : 'cancelled' });
        return;
      case 'unavailable':
        this.waiters.settle(entry.id ?? '', { kind: 'unavailable' });
        return;
      case 'fence':
        this.fences
          .answer(entry.t ?? '', entry.c ?? '')
          .catch((error: unknown) =>
            this.o.log.warn('a Stop fence was not answered', { reason: (error as Error).message }),
          );
        return;
      case 'inval':
        // A lookup key this node keeps a copy of changed. Answered once the copy is gone, when the
        // change (an attach) waits for the answer.
        this.copies.drop(entry.S ?? '');
        if (entry.t && entry.c)
          this.fences
            .tellFenced(entry.t, entry.c)
            .catch((error: unknown) =>
              this.o.log.warn('a lane change was not answered', { reason: (error as Error).message }),
            );
        return;
      case 'fenced':
        this.fences.acked(entry.t ?? '', entry.n ?? '');
        return;
      case 'await':
        this.waiters.awaitingApproval(entry.s ?? '', entry.t ?? '', entry.a ?? '', Number(entry.x));
        return;
    }
  }
}

function resultOf(entry: InboxEntry): CommandOutcome {
  const payload = JSON.parse(entry.p ?? 'null') as unknown;
  return entry.ok === '1' ? { kind: 'ok', result: payload } : { kind: 'rejected', error: payload };
}
