/**
 * The broker of one cluster node: the same rules as the embedded broker (docs/protocol.md "Identity,
 * lanes and replacement"), with tickets, lanes and pending commands in Redis so that a controller may
 * register on one node, hold its socket on a second and serve a call arriving on a third. What stays on
 * this node: its sockets (and the order of what is written to each), and each of its callers' waiter,
 * which is single-shot, so an outcome reaches a caller exactly once. Sent at most once: only the owner's
 * `mark-sent` (or the dispatch itself, when the caller holds the socket) lets a command reach a socket.
 */
import { randomBytes } from 'node:crypto';
import {
  DEFERRED_CANCEL_CAP,
  encodeFrame,
  FRAME_METHODS,
  TabgateError,
  TICKET_BYTES,
  TICKET_TTL_SECONDS,
  type SecretFill,
} from '../../protocol/index.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../../log/logger.js';
import type { BindingObserver } from '../session-binding.js';
import type { DispatchRequest, LaneState } from '../broker/controller-broker.js';
import type { CommandOutcome, FrameSender } from '../broker/commands.js';
import type { ControllerBroker } from '../broker/controller-broker.js';
import { DeadlineQueue } from '../broker/deadlines.js';
import { commandError } from '../broker/command-error.js';
import { commandParams } from '../broker/command-params.js';
import { laneKey, sessionLookupKey, type ControllerScope, type LaneQuery } from '../broker/scope.js';
import type { ConsumeOutcome, MintedTicket } from '../broker/tickets.js';
import { InboxReader, type InboxEntry } from './inbox-reader.js';
import { laneKeys, laneKeysOf, lookupSlot, sessionKey, ticketKey, type LaneKeys } from './keys.js';
import * as lua from './lua.js';
import { LEASE_RENEW_MS, LEASE_TTL_MS, NodeLease } from './node-lease.js';
import type { RedisLink } from './redis-link.js';
import { REVOKED_CLOSE_CODE } from '../pairing/grant-controllers.js';
import { mayReceiveSecrets, noteRegistration } from '../secrets/index.js';
import type { Caller } from '../service.js';
import { ControllerConnection } from '../ws/controller-connection.js';

const INBOX_MAXLEN = '10000';
/** How often a caller looks whether a command queued to a vanished owner can be given up. */
const ABANDON_SWEEP_MS = 500;
const ABANDON_AFTER_MS = 1000;
/** The reader has not read back its own probe for this long while renewals succeed: it is deaf. */
const DEAF_AFTER_MS = 3 * LEASE_RENEW_MS;
/**
 * "Service restart": the extension registers again, through whichever node the load balancer picks,
 * and so lands on a node that can route to it.
 */
const LET_GO_CODE = 1012;

interface LocalLane {
  scope: ControllerScope;
  keys: LaneKeys;
  owner: object;
  sender: FrameSender;
  gen: string;
  /** Writes to this socket, in inbox order: a cancel waits for the command before it. */
  chain: Promise<void>;
}

/** Besides the embedded broker's outcomes: the owner node could not send it (gone, or the socket moved). */
type Outcome = CommandOutcome | { kind: 'unavailable' };

interface Waiter {
  keys: LaneKeys;
  toolCallId: string | null;
  /** The node the command was queued to; null when this node holds the socket. */
  owner: string | null;
  queuedAt: number;
  settle(outcome: Outcome): void;
}

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

const EMPTY_LANE: LaneState = { registered: false, controllers: [] };

/**
 * A scope read back from Redis is a new object, which the vault does not know: one its owner paired
 * (registered with a pairing token, as Redis recorded at registration) is made known again, so a
 * fill may go to it; any other gets no secret, as on one gateway.
 */
function scopeOf(json: string, paired: boolean): ControllerScope {
  const scope = JSON.parse(json) as ControllerScope;
  if (paired) noteRegistration({ credential: 'pairing_token' } as Caller, scope);
  return scope;
}

/** What a command's Redis entry says of its vault secret: which one, never its value. */
interface SecretRef {
  name: string;
  origin: string;
  field: string;
}

/** The command frame as the socket gets it: the secret's value is added only here, on the way out. */
function withSecret(frame: string, fill: SecretFill): string {
  const parsed = JSON.parse(frame) as { params: Record<string, unknown> };
  parsed.params.secret = fill;
  return JSON.stringify(parsed);
}

function unavailable(what: string): TabgateError {
  return new TabgateError(
    'cluster_unavailable',
    `this gateway cannot reach its cluster's Redis; ${what} was not sent to any browser`,
  );
}

export class ClusterBroker implements ControllerBroker {
  private readonly local = new Map<string, LocalLane>();
  private readonly waiters = new Map<string, Waiter>();
  /** The last lane each lookup key showed on this node: advisory (tool lists), never for routing. */
  private readonly seen = new Map<string, LaneState>();
  private readonly deadlines: DeadlineQueue;
  private readonly lease: NodeLease;
  private reader: InboxReader | null = null;
  private sweep: NodeJS.Timeout | null = null;

  constructor(private readonly o: ClusterBrokerOptions) {
    this.deadlines = new DeadlineQueue(o.commandTimeoutMs, (id) => this.endEarly(id, 'timeout'), o.clock);
    this.lease = new NodeLease(o.link, o.nodeId, o.leaseValue, o.log, {
      forgotten: () => void this.revalidate(),
      lapsed: () => this.letGoAll('this gateway lost its cluster'),
    });
  }

  get nodeId(): string {
    return this.o.nodeId;
  }

  async start(): Promise<void> {
    let runId = await this.o.link.runId();
    // A restart or failover that kept the epoch (persistence) may still have lost the last writes.
    this.o.link.onReconnect(() => {
      this.o.link.runId().then(
        (now) => {
          if (now === runId) return;
          runId = now;
          void this.revalidate();
        },
        () => undefined,
      );
    });
    await this.lease.start();
    this.reader = new InboxReader(this.o.link, this.o.nodeId, (entry) => this.onInbox(entry), this.o.log);
    this.sweep = setInterval(() => {
      this.abandonSweep();
      this.checkReader();
    }, ABANDON_SWEEP_MS);
    this.sweep.unref();
  }

  async mintTicket(scope: ControllerScope): Promise<MintedTicket> {
    const ticket = randomBytes(TICKET_BYTES).toString('base64url');
    const reply = (await this.redis(
      'registration',
      lua.MINT,
      [ticketKey(ticket)],
      [JSON.stringify(scope), String(TICKET_TTL_SECONDS * 1000), mayReceiveSecrets(scope) ? '1' : '0'],
    )) as string[];
    if (reply[0] !== 'ok') throw new Error('ticket collision');
    return { ticket, issuedAt: Number(reply[1]), expiresAt: Number(reply[2]) };
  }

  async consumeTicket(ticket: string): Promise<ConsumeOutcome> {
    const reply = (await this.o.link.run(lua.CONSUME, [ticketKey(ticket)], [])) as string[];
    switch (reply[0]) {
      case 'ok':
        return { ok: true, scope: scopeOf(reply[1] as string, reply[2] === '1') };
      case 'consumed':
        return { ok: false, reason: 'ticket already consumed' };
      case 'expired':
        return { ok: false, reason: 'ticket expired' };
      default:
        return { ok: false, reason: 'unknown ticket' };
    }
  }

  laneState(query: LaneQuery): LaneState {
    return (
      this.seen.get(sessionLookupKey(query.sessionId, query.principalId, query.transportFamily)) ?? EMPTY_LANE
    );
  }

  async lookupLane(query: LaneQuery): Promise<LaneState> {
    if (!query.principalId.trim() || !query.sessionId.trim()) return EMPTY_LANE;
    const lookup = sessionLookupKey(query.sessionId, query.principalId, query.transportFamily);
    const keys = laneKeysOf(lookupSlot(lookup), '');
    const flat = (await this.redis('the call', lua.LOOKUP, [keys.idx], [keys.prefix])) as string[];
    const controllers: LaneState['controllers'][number][] = [];
    for (let i = 0; i + 2 < flat.length; i += 3)
      controllers.push({
        scope: scopeOf(flat[i] as string, flat[i + 2] === '1'),
        connected: flat[i + 1] === '1',
      });
    const state: LaneState = { registered: controllers.length > 0, controllers };
    if (state.registered) this.seen.set(lookup, state);
    else this.seen.delete(lookup);
    return state;
  }

  /**
   * Takes the lane for this node (replacing other identities of the lane), then writes the deferred
   * cancels in order; the lane is routable only once the commit finds none left.
   */
  async attach(scope: ControllerScope, owner: object, sender: FrameSender): Promise<void> {
    const keys = laneKeys(scope);
    const caps = `,${scope.capabilities.join(',')},`;
    const [gen, deferred] = (await this.o.link.run(
      lua.ATTACH,
      [keys.idx, keys.lane, sessionKey(scope.session_id)],
      [
        keys.h,
        JSON.stringify(scope),
        laneKey(scope),
        caps,
        this.o.nodeId,
        keys.prefix,
        keys.S,
        INBOX_MAXLEN,
        mayReceiveSecrets(scope) ? '1' : '0',
      ],
    )) as [string, string[]];
    const lane: LocalLane = { scope, keys, owner, sender, gen, chain: Promise.resolve() };
    this.local.set(keys.h, lane);
    let pending = deferred;
    while (pending.length > 0) {
      // A throw leaves the unsent remainder queued for the next reconnect; the caller closes the socket.
      for (const frame of pending) sender(frame);
      const [status, left] = (await this.o.link.run(
        lua.COMMIT,
        [keys.lane, keys.defer],
        [gen, String(pending.length)],
      )) as [string, string[]];
      if (status === 'moved') break;
      pending = left;
    }
    this.o.bindings?.bound(scope);
  }

  async disconnect(scope: ControllerScope, owner: object): Promise<boolean> {
    const keys = laneKeys(scope);
    const lane = this.local.get(keys.h);
    if (!lane || lane.owner !== owner) return false;
    this.local.delete(keys.h);
    await this.o.link.run(lua.DISCONNECT, [keys.lane], [this.o.nodeId, lane.gen]);
    return true;
  }

  async detach(scope: ControllerScope, owner: object): Promise<boolean> {
    const keys = laneKeys(scope);
    const lane = this.local.get(keys.h);
    if (!lane || lane.owner !== owner) return false;
    const removed = await this.remove(keys, scope.session_id, true, lane);
    if (!removed) return false;
    if (removed.left === 0) this.o.bindings?.released(scope, 'stopped');
    return true;
  }

  async detachSession(sessionId: string): Promise<object[]> {
    const members: string[] = await this.o.link.command.sendCommand(['SMEMBERS', sessionKey(sessionId)]);
    const owners: object[] = [];
    for (const member of members) {
      const [S, h] = member.split(':') as [string, string];
      const removed = await this.remove(laneKeysOf(S, h), sessionId, true, null);
      if (removed?.owner) owners.push(removed.owner);
    }
    return owners;
  }

  async detachController(scope: ControllerScope): Promise<object | null> {
    const removed = await this.remove(
      laneKeys(scope),
      scope.session_id,
      true,
      null,
      String(REVOKED_CLOSE_CODE),
    );
    if (!removed) return null;
    if (removed.left === 0) this.o.bindings?.released(scope, 'revoked');
    return removed.owner;
  }

  dispatch(request: DispatchRequest): Promise<unknown> {
    const { signal } = request;
    if (signal?.aborted) {
      return Promise.reject(
        new TabgateError('controller_cancelled', 'the call was cancelled before it was sent'),
      );
    }
    const keys = laneKeys(request.scope);
    const commandId = randomBytes(16).toString('hex');
    const deadlineAt = this.o.clock.now() + this.o.commandTimeoutMs;
    // Redis gets the frame without the secret; the node holding the socket adds the value.
    const frame = encodeFrame({
      method: FRAME_METHODS.command,
      params: commandParams(request, commandId, deadlineAt),
    });
    const { secret } = request;
    const secretRef: SecretRef | null = secret
      ? { name: secret.name, origin: secret.origin, field: secret.field }
      : null;
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = () => this.endEarly(commandId, 'cancelled');
      const waiter: Waiter = {
        keys,
        toolCallId: request.toolCallId,
        owner: null,
        queuedAt: performance.now(),
        settle: (outcome) => {
          this.deadlines.remove(commandId);
          signal?.removeEventListener('abort', onAbort);
          if (outcome.kind === 'ok') resolve(outcome.result);
          else reject(this.errorFor(commandId, outcome));
        },
      };
      // Waiting before the command exists anywhere: its result may come through the inbox connection
      // before this connection hands over the dispatch reply, and must find its waiter.
      this.waiters.set(commandId, waiter);
      this.deadlines.add(commandId);
      signal?.addEventListener('abort', onAbort, { once: true });
      const refuse = (error: TabgateError) => {
        if (!this.waiters.delete(commandId)) return;
        this.deadlines.remove(commandId);
        signal?.removeEventListener('abort', onAbort);
        reject(error);
      };
      this.o.link
        .run(
          lua.DISPATCH,
          [keys.idx, keys.lane, keys.pend],
          [
            keys.h,
            request.action,
            commandId,
            this.o.nodeId,
            JSON.stringify(request.toolCallId),
            frame,
            INBOX_MAXLEN,
            keys.S,
            secretRef ? JSON.stringify(secretRef) : '',
          ],
        )
        .then(
          (reply) => {
            const [verdict, gen, owner] = reply as string[];
            if (verdict !== 'local' && verdict !== 'remote') {
              refuse(
                new TabgateError(
                  'controller_unavailable',
                  verdict === 'owner_gone'
                    ? `the gateway holding the bound browser controller is gone; ${request.action} was not sent`
                    : `bound browser controller cannot execute ${request.action}`,
                ),
              );
              return;
            }
            if (verdict === 'remote') {
              waiter.owner = owner ?? null;
              return;
            }
            const lane = this.local.get(keys.h);
            try {
              if (!lane || lane.gen !== gen) throw new Error('the socket moved');
              lane.sender(secret ? withSecret(frame, secret) : frame);
            } catch (error) {
              this.o.log.warn('controller send failed', { reason: (error as Error).message });
              this.finishLocal(commandId, { kind: 'cancelled' });
            }
          },
          () => refuse(unavailable(request.action)),
        );
    });
  }

  async complete(commandId: string, scope: ControllerScope, ok: boolean, payload: unknown): Promise<boolean> {
    const keys = laneKeys(scope);
    const outcome: Outcome = ok ? { kind: 'ok', result: payload } : { kind: 'rejected', error: payload };
    const finish = this.o.link.run(
      lua.FINISH,
      [keys.pend],
      [
        commandId,
        this.o.nodeId,
        '0',
        'result',
        ok ? '1' : '0',
        JSON.stringify(payload ?? null),
        INBOX_MAXLEN,
      ],
    );
    // The caller waits on this node for this identity's command: its outcome is decided here (the
    // waiter is single-shot) and the reply need not wait for Redis to drop the pending entry.
    const waiter = this.waiters.get(commandId);
    if (waiter && waiter.keys.h === keys.h) {
      this.settleWaiter(commandId, outcome);
      finish.catch((error: unknown) =>
        this.o.log.warn('cluster result not recorded', { reason: (error as Error).message }),
      );
      return true;
    }
    const where = await finish;
    if (where === 'local') this.settleWaiter(commandId, outcome);
    return where !== null;
  }

  /** Graceful leave: the lease goes first, so every node refuses this node's lanes at once. */
  async close(): Promise<void> {
    if (this.sweep) clearInterval(this.sweep);
    for (const id of [...this.waiters.keys()]) this.settleWaiter(id, { kind: 'cancelled' });
    this.deadlines.clear();
    try {
      await this.lease.stop();
      await Promise.all(
        [...this.local.values()].map((lane) =>
          this.o.link.run(lua.DISCONNECT, [lane.keys.lane], [this.o.nodeId, lane.gen]),
        ),
      );
    } catch (error) {
      this.o.log.warn('cluster leave incomplete', { reason: (error as Error).message });
    }
    this.local.clear();
    const reader = this.reader?.stop();
    this.o.link.close();
    await reader;
  }

  private async redis(what: string, source: string, keys: string[], args: string[]): Promise<unknown> {
    try {
      return await this.o.link.run(source, keys, args);
    } catch {
      throw unavailable(what);
    }
  }

  private async remove(
    keys: LaneKeys,
    sessionId: string,
    notify: boolean,
    expect: LocalLane | null,
    closeCode = '',
  ): Promise<{ owner: object | null; left: number } | null> {
    const reply = (await this.o.link.run(
      lua.DETACH,
      [keys.idx, keys.lane, keys.pend, keys.defer, sessionKey(sessionId)],
      [
        keys.h,
        this.o.nodeId,
        notify ? '1' : '0',
        INBOX_MAXLEN,
        keys.S,
        expect ? this.o.nodeId : '',
        expect ? expect.gen : '',
        closeCode,
      ],
    )) as [string, string, string[], string[], number] | null;
    if (!reply) return null;
    const [, ownerNode, frames, cancelled, left] = reply;
    const lane = ownerNode === this.o.nodeId ? this.local.get(keys.h) : undefined;
    if (lane) {
      for (const frame of frames) {
        try {
          lane.sender(frame);
        } catch {
          break;
        }
      }
      this.local.delete(keys.h);
    }
    for (const id of cancelled) this.settleWaiter(id, { kind: 'cancelled' });
    return { owner: lane?.owner ?? null, left: Number(left) };
  }

  private onInbox(entry: InboxEntry): void {
    switch (entry.k) {
      case 'command':
        this.deliverCommand(entry);
        return;
      case 'cancel': {
        const lane = this.local.get(entry.h ?? '');
        const frame = entry.f ?? '';
        if (lane) lane.chain = lane.chain.then(() => this.write(lane, frame));
        return;
      }
      case 'revoke': {
        const lane = this.local.get(entry.h ?? '');
        if (!lane || Number(lane.gen) > Number(entry.gen)) return;
        // Replaced: the socket stays open and unrouted, as in the embedded broker. Revoked: closed here,
        // since only this node holds it.
        if (entry.c) this.letGo(lane, Number(entry.c), 'pairing revoked');
        else this.local.delete(entry.h ?? '');
        return;
      }
      case 'result':
        this.settleWaiter(entry.id ?? '', this.resultOf(entry));
        return;
      case 'cancelled':
        this.settleWaiter(entry.id ?? '', { kind: 'cancelled' });
        return;
      case 'unavailable':
        this.settleWaiter(entry.id ?? '', { kind: 'unavailable' });
        return;
    }
  }

  private resultOf(entry: InboxEntry): CommandOutcome {
    const payload = JSON.parse(entry.p ?? 'null') as unknown;
    return entry.ok === '1' ? { kind: 'ok', result: payload } : { kind: 'rejected', error: payload };
  }

  /**
   * A command queued to this node: fenced by `mark-sent`, then written. Fences go out in inbox order on
   * one connection and their answers come back in that order, so writes keep the inbox's order without
   * waiting for each other's round trip.
   */
  private deliverCommand(entry: InboxEntry): void {
    const id = entry.id ?? '';
    const keys = laneKeysOf(entry.S ?? '', entry.h ?? '');
    const lane = this.local.get(keys.h);
    const giveUp = () =>
      this.o.link
        .run(lua.FINISH, [keys.pend], [id, this.o.nodeId, '1', 'unavailable', '0', 'null', INBOX_MAXLEN])
        .then((where) => {
          if (where === 'local') this.settleWaiter(id, { kind: 'unavailable' });
        });
    const frame = this.frameWithSecret(entry);
    if (!lane || lane.gen !== entry.gen || frame === null) {
      giveUp().catch(() => undefined);
      return;
    }
    const fence = this.o.link.run(
      lua.MARK_SENT,
      [keys.lane, keys.pend],
      [id, entry.gen ?? '', this.o.nodeId],
    );
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
      } catch (error) {
        this.o.log.warn('controller send failed', { reason: (error as Error).message });
        await this.o.link
          .run(lua.FINISH, [keys.pend], [id, this.o.nodeId, '0', 'cancelled', '0', 'null', INBOX_MAXLEN])
          .catch(() => undefined);
      }
    });
  }

  /**
   * The entry's frame, with the value of the secret it names read from this node's vault; null when
   * this vault has no such secret for that origin and field (the nodes' vaults differ): not sent.
   */
  private frameWithSecret(entry: InboxEntry): string | null {
    const frame = entry.f ?? '';
    if (!entry.s) return frame;
    try {
      const ref = JSON.parse(entry.s) as SecretRef;
      const fill = this.o.fills?.(ref.name);
      if (!fill || fill.origin !== ref.origin || fill.field !== ref.field) throw new Error('another secret');
      return withSecret(frame, fill);
    } catch {
      this.o.log.warn('a command named a vault secret this node does not hold the same; it was not sent');
      return null;
    }
  }

  /** Closes a socket this node holds and stops routing to it; its `disconnect` then finds nothing. */
  private letGo(lane: LocalLane, code: number, reason: string): void {
    if (this.local.get(lane.keys.h) === lane) this.local.delete(lane.keys.h);
    if (lane.owner instanceof ControllerConnection) lane.owner.socket.close(code, reason);
  }

  private letGoAll(reason: string): void {
    for (const lane of [...this.local.values()]) this.letGo(lane, LET_GO_CODE, reason);
  }

  /**
   * Redis may have forgotten lanes: each socket whose lane is no longer this node's at its generation
   * is closed so its controller registers again. Nothing is re-routed: until then its calls fail closed.
   */
  private async revalidate(): Promise<void> {
    const lanes = [...this.local.values()];
    const found = await Promise.all(
      lanes.map((lane) =>
        this.o.link.command.sendCommand(['HMGET', lane.keys.lane, 'owner', 'gen']).catch(() => null),
      ),
    );
    lanes.forEach((lane, i) => {
      const [owner, gen] = (found[i] ?? []) as (string | null)[];
      if (owner !== this.o.nodeId || gen !== lane.gen)
        this.letGo(lane, LET_GO_CODE, 'the cluster forgot this controller; register again');
    });
  }

  private write(lane: LocalLane, frame: string): void {
    try {
      lane.sender(frame);
    } catch {
      // The socket is going away; the cancel waits for the reconnect.
      void this.o.link
        .run(lua.DEFER, [lane.keys.defer], [frame, String(DEFERRED_CANCEL_CAP)])
        .catch(() => undefined);
    }
  }

  private settleWaiter(commandId: string, outcome: Outcome): void {
    const waiter = this.waiters.get(commandId);
    if (!waiter) return;
    this.waiters.delete(commandId);
    waiter.settle(outcome);
  }

  /** The command was marked sent but never reached the socket: end it here and in Redis. */
  private finishLocal(commandId: string, outcome: Outcome): void {
    const waiter = this.waiters.get(commandId);
    if (waiter)
      void this.o.link
        .run(
          lua.FINISH,
          [waiter.keys.pend],
          [commandId, this.o.nodeId, '0', 'cancelled', '0', 'null', INBOX_MAXLEN],
        )
        .catch(() => undefined);
    this.settleWaiter(commandId, outcome);
  }

  /** Timeout or caller abort: the outcome is local and immediate; the cancel follows through Redis. */
  private endEarly(commandId: string, kind: 'timeout' | 'cancelled'): void {
    const waiter = this.waiters.get(commandId);
    if (!waiter) return;
    this.settleWaiter(commandId, { kind });
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
        const lane = this.local.get(keys.h);
        if (where === 'local' && lane) lane.chain = lane.chain.then(() => this.write(lane, frame));
      })
      .catch((error: unknown) =>
        this.o.log.warn('cluster cancel not recorded', { reason: (error as Error).message }),
      );
  }

  private replacingReader = false;

  /** Redis answers this node, yet its reader hears nothing, not even its own probes: a new connection. */
  private checkReader(): void {
    const reader = this.reader;
    if (!reader || this.replacingReader || !this.o.link.ready) return;
    if (performance.now() - reader.lastProbe < DEAF_AFTER_MS) return;
    this.replacingReader = true;
    this.o.log.warn('cluster inbox reader hears nothing: replacing its connection');
    this.o.link
      .replaceReader()
      .catch((error: unknown) =>
        this.o.log.warn('cluster inbox reader not replaced', { reason: (error as Error).message }),
      )
      .finally(() => {
        reader.lastProbe = performance.now();
        this.replacingReader = false;
      });
  }

  /** Commands queued to an owner whose lease has gone and that it never sent end now, not at their deadline. */
  private abandonSweep(): void {
    const now = performance.now();
    for (const [id, waiter] of this.waiters) {
      if (waiter.owner === null || now - waiter.queuedAt < Math.min(ABANDON_AFTER_MS, LEASE_TTL_MS)) continue;
      this.o.link
        .run(lua.ABANDON, [waiter.keys.pend], [id, waiter.owner])
        .then((gone) => {
          if (gone === 1) this.settleWaiter(id, { kind: 'unavailable' });
        })
        .catch(() => undefined);
    }
  }

  private errorFor(commandId: string, outcome: Exclude<Outcome, { kind: 'ok' }>): TabgateError {
    if (outcome.kind !== 'unavailable') return commandError(commandId, outcome, this.o.commandTimeoutMs);
    return new TabgateError(
      'controller_unavailable',
      `the gateway holding the bound browser controller could not send command '${commandId}'; it was not run`,
    );
  }
}
