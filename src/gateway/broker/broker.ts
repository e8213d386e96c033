/**
 * The broker: every rule of docs/protocol.md "Identity, lanes and replacement" over three pieces of state
 * (tickets, lanes, commands), each behind an interface so a shared store can replace the in-memory one.
 * Node runs this on one thread, so each method's state change is atomic; ordering rules (cancel before
 * anything newer, deferred cancels before routing resumes) come from doing the sends synchronously, in
 * order, inside the method that changes state.
 */
import { FRAME_METHODS, TabgateError, type CancelParams } from '../../protocol/index.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../../log/logger.js';
import type { CommandBus, CommandOutcome, FrameSender, PendingCommand } from './commands.js';
import type { ControllerRecord, LaneRegistry } from './lanes.js';
import { identityKey, sessionLookupKey, type ControllerScope, type LaneQuery } from './scope.js';
import type { ConsumeOutcome, MintedTicket, TicketStore } from './tickets.js';
import { DEFERRED_CANCEL_CAP } from '../../protocol/index.js';
import { DeadlineQueue } from './deadlines.js';
import type { ApprovalWaits, ControllerBroker, DispatchRequest, LaneState } from './controller-broker.js';
import { commandError } from './command-error.js';
import { commandParams } from './command-params.js';
import { newCommandId } from './command-id.js';
import type { BindingObserver } from '../session-binding.js';

export interface BrokerOptions {
  tickets: TicketStore;
  lanes: LaneRegistry;
  commands: CommandBus;
  clock: Clock;
  log: Logger;
  /** `browser.extension_control.command_timeout`, in ms. */
  commandTimeoutMs: number;
  /** Told when a session gains a controller or loses its last one on purpose (stop, revoke). */
  bindings?: BindingObserver;
}

/** What an agent's call finds in its session's lane; the router decides from this alone. */
export class Broker implements ControllerBroker, ApprovalWaits {
  private readonly deadlines: DeadlineQueue;
  /** The approval each waiting command waits for (its latest), for the agent's error and to move once. */
  private readonly approvalOf = new Map<string, string>();

  constructor(private readonly o: BrokerOptions) {
    this.deadlines = new DeadlineQueue(o.commandTimeoutMs, (id) => this.endEarly(id, 'timeout'), o.clock);
  }

  mintTicket(scope: ControllerScope): MintedTicket {
    return this.o.tickets.mint(scope, this.o.clock.now());
  }

  consumeTicket(ticket: string): ConsumeOutcome {
    return this.o.tickets.consume(ticket, this.o.clock.now());
  }

  laneState(query: LaneQuery): LaneState {
    if (!query.principalId.trim() || !query.sessionId.trim()) return { registered: false, controllers: [] };
    const records = this.o.lanes.lookup(
      sessionLookupKey(query.sessionId, query.principalId, query.transportFamily),
    );
    // The records themselves, read-only to the router, which decides before anything can change them.
    return { registered: records.length > 0, controllers: records };
  }

  /**
   * A socket took a consumed ticket's scope. Replacement first (old siblings detached without frames),
   * then either a new record, or a reconnect: the record moves to this socket, its pending commands stay
   * (keyed by identity), and its deferred cancels are flushed in order before it is routable again.
   */
  attach(scope: ControllerScope, owner: object, sender: FrameSender): void {
    const identity = identityKey(scope);
    for (const sibling of this.o.lanes.inLane(scope)) {
      if (identityKey(sibling.scope) !== identity) this.hardDetach(sibling, false);
    }
    const existing = this.o.lanes.get(identity);
    if (!existing) {
      this.o.lanes.put({ scope, connected: true, owner, deferredCancels: [] });
      this.o.commands.bindSender(identity, sender);
      this.o.bindings?.bound(scope);
      return;
    }
    existing.connected = false;
    existing.owner = owner;
    existing.scope = scope;
    this.o.lanes.put(existing);
    this.o.commands.bindSender(identity, sender);
    while (existing.deferredCancels.length > 0) {
      const cancel = existing.deferredCancels[0] as CancelParams;
      // A throw leaves the unsent remainder queued for the next reconnect; the caller closes the socket.
      this.o.commands.deliver(identity, { method: FRAME_METHODS.cancel, params: cancel });
      existing.deferredCancels.shift();
    }
    existing.connected = true;
    this.o.bindings?.bound(scope);
  }

  /** The socket closed. Only its current owner may take the controller offline; pending work waits. */
  disconnect(scope: ControllerScope, owner: object): boolean {
    const identity = identityKey(scope);
    const record = this.o.lanes.get(identity);
    if (!record || record.owner !== owner) return false;
    record.connected = false;
    record.owner = null;
    this.o.commands.bindSender(identity, null);
    return true;
  }

  /** Explicit detach from the controller; a stale socket's request changes nothing. */
  detach(scope: ControllerScope, owner: object): boolean {
    const record = this.o.lanes.get(identityKey(scope));
    if (!record || record.owner !== owner) return false;
    this.hardDetach(record, true);
    this.released(record.scope, 'stopped');
    return true;
  }

  /** Detaches every controller of a deleted session, telling each to cancel its work. */
  detachSession(sessionId: string): object[] {
    const owners: object[] = [];
    for (const record of this.o.lanes.all()) {
      if (record.scope.session_id !== sessionId) continue;
      if (record.owner) owners.push(record.owner);
      this.hardDetach(record, true);
    }
    return owners;
  }

  /**
   * Detaches one controller whoever holds it, online or offline (its credential was revoked), telling
   * it to cancel its work; returns the socket owner that held it, if any, for the caller to close.
   */
  detachController(scope: ControllerScope): object | null {
    const record = this.o.lanes.get(identityKey(scope));
    if (!record) return null;
    const owner = record.owner;
    this.hardDetach(record, true);
    this.released(record.scope, 'revoked');
    return owner;
  }

  /** Sends a command to the controller and waits for its answer, its deadline, or the caller's abort. */
  dispatch(request: DispatchRequest): Promise<unknown> {
    const identity = identityKey(request.scope);
    const record = this.o.lanes.get(identity);
    if (!record || !record.connected || !record.scope.capabilities.some((c) => c === request.action)) {
      return Promise.reject(
        new TabgateError(
          'controller_unavailable',
          `bound browser controller cannot execute ${request.action}`,
        ),
      );
    }
    const { signal } = request;
    if (signal?.aborted) {
      return Promise.reject(
        new TabgateError('controller_cancelled', 'the call was cancelled before it was sent'),
      );
    }
    const commandId = newCommandId();
    const deadlineAt = this.o.clock.now() + this.o.commandTimeoutMs;
    return new Promise<unknown>((resolve, reject) => {
      const onAbort = () => this.endEarly(commandId, 'cancelled');
      const settle = (outcome: CommandOutcome) => {
        this.deadlines.remove(commandId);
        const approvalId = this.approvalOf.get(commandId);
        this.approvalOf.delete(commandId);
        signal?.removeEventListener('abort', onAbort);
        if (outcome.kind === 'ok') resolve(outcome.result);
        else reject(commandError(commandId, outcome, this.o.commandTimeoutMs, approvalId));
      };
      try {
        this.o.commands.deliver(identity, {
          method: FRAME_METHODS.command,
          // Serialized right here, so the caller's object cannot change what is sent.
          params: request.secret
            ? { ...commandParams(request, commandId, deadlineAt), secret: request.secret }
            : commandParams(request, commandId, deadlineAt),
        });
      } catch (error) {
        // Never registered: the caller is answered once, and nothing is left pending or timed.
        this.o.log.warn('controller send failed', { reason: (error as Error).message });
        settle({ kind: 'cancelled' });
        return;
      }
      this.awaitAnswer({
        commandId,
        identity,
        action: request.action,
        toolCallId: request.toolCallId,
        deadlineAt,
        settle,
      });
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * A sent command becomes pending, with its deadline, only once its frame has left: in the same turn,
   * so before any answer can be read, and off each call's path to the send (a Map entry, the deadline
   * queue; measured with the rest of that path at GatewayService's beginOnTimeline).
   */
  private awaitAnswer(command: PendingCommand): void {
    this.o.commands.open(command);
    this.deadlines.add(command.commandId);
  }

  /**
   * The person decides now, not the command's clock: each of the session's commands of `tool` waiting
   * on a controller has its deadline moved by the approval's whole window, so what it had left for the
   * action itself is still there once the decision comes. An approval it already waits for moves nothing.
   */
  awaitingApproval(sessionId: string, tool: string, approvalId: string, expiresAt: number): void {
    const window = expiresAt - this.o.clock.now();
    for (const command of this.o.commands.all()) {
      if (command.action !== tool || this.approvalOf.get(command.commandId) === approvalId) continue;
      if (this.o.lanes.get(command.identity)?.scope.session_id !== sessionId) continue;
      if (!this.deadlines.postpone(command.commandId, window)) continue;
      this.approvalOf.set(command.commandId, approvalId);
      this.o.log.info('command waits for approval', {
        session_id: sessionId,
        approval_id: approvalId,
        command_id: command.commandId,
      });
    }
  }

  /** A result from a socket whose scope is `scope`. False (and nothing changes) when late or foreign. */
  complete(commandId: string, scope: ControllerScope, ok: boolean, payload: unknown): boolean {
    const command = this.o.commands.take(commandId, identityKey(scope));
    if (!command) return false;
    command.settle(ok ? { kind: 'ok', result: payload } : { kind: 'rejected', error: payload });
    return true;
  }

  /** Shutdown: every waiting caller gets `controller_cancelled`; all state is dropped. */
  close(): void {
    for (const command of this.o.commands.all())
      this.o.commands.take(command.commandId)?.settle({ kind: 'cancelled' });
    this.o.commands.clear();
    this.deadlines.clear();
    this.approvalOf.clear();
    this.o.lanes.clear();
    this.o.tickets.clear();
  }

  /** Timeout or caller abort: the controller is told to stop (now, or at its reconnect if offline). */
  private endEarly(commandId: string, kind: 'timeout' | 'cancelled'): void {
    const command = this.o.commands.take(commandId);
    if (!command) return;
    this.sendCancel(command);
    command.settle({ kind });
  }

  private sendCancel(command: PendingCommand): void {
    const record = this.o.lanes.get(command.identity);
    if (!record) return;
    const cancel: CancelParams = { command_id: command.commandId, tool_call_id: command.toolCallId };
    if (record.connected) {
      try {
        if (this.o.commands.deliver(command.identity, { method: FRAME_METHODS.cancel, params: cancel }))
          return;
      } catch {
        // Fall through: the socket is going away; the cancel waits for the reconnect.
      }
    }
    record.deferredCancels.push(cancel);
    if (record.deferredCancels.length > DEFERRED_CANCEL_CAP) record.deferredCancels.shift();
  }

  /** A session whose last controller left on purpose stays bound, as stopped or revoked. */
  private released(scope: ControllerScope, why: 'stopped' | 'revoked'): void {
    if (!this.o.bindings) return;
    for (const record of this.o.lanes.all()) if (record.scope.session_id === scope.session_id) return;
    this.o.bindings.released(scope, why);
  }

  /** Removes a controller; its pending commands fail as cancelled, cancel frames first when notified. */
  private hardDetach(record: ControllerRecord, notify: boolean): void {
    const identity = identityKey(record.scope);
    const pending = this.o.commands.pendingOf(identity);
    if (notify && record.connected) {
      for (const command of pending) {
        try {
          this.o.commands.deliver(identity, {
            method: FRAME_METHODS.cancel,
            params: { command_id: command.commandId, tool_call_id: command.toolCallId },
          });
        } catch {
          break;
        }
      }
    }
    this.o.lanes.remove(identity);
    this.o.commands.bindSender(identity, null);
    for (const command of pending) this.o.commands.take(command.commandId)?.settle({ kind: 'cancelled' });
  }
}
