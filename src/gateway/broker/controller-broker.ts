/**
 * What the rest of the gateway asks of a broker, whichever state it keeps. The embedded broker answers
 * every question synchronously from memory; a cluster broker answers from Redis and so returns promises.
 * `MaybePromise` lets the embedded one keep its synchronous hot path (no promise, no microtask per call)
 * while callers that must also serve a cluster handle both through `settle` below.
 */
import type { SecretFill } from '../../protocol/index.js';
import type { CallSignal } from '../call-signal.js';
import type { FrameSender } from './commands.js';
import type { ControllerScope, LaneQuery } from './scope.js';
import type { ConsumeOutcome, MintedTicket } from './tickets.js';

export type MaybePromise<T> = T | Promise<T>;

export interface LaneState {
  registered: boolean;
  controllers: readonly { readonly scope: ControllerScope; readonly connected: boolean }[];
}

export interface DispatchRequest {
  scope: ControllerScope;
  action: string;
  arguments: Record<string, unknown>;
  toolCallId: string | null;
  signal?: CallSignal;
  /** The vault secret of this one fill; it travels in this command's frame and is kept nowhere. */
  secret?: SecretFill;
  /**
   * How long the controller may also wait for a person's decision while it runs this command (the
   * paired extension, on a tool it may hold for approval): added to the frame's `deadline_at`, so the
   * controller does not give up first. The gateway's own deadline moves only when an approval is asked.
   */
  approvalWindowMs?: number;
}

/**
 * A broker whose commands can wait for a person's decision (docs/safety.md "On the user's tab"): told
 * when the controller asked for an approval, it moves the deadline of the command that waits, so the
 * approval's own timeout decides, not the command's. Both brokers implement it; the cluster broker
 * tells the node where the command's caller waits, whichever node the extension asked through.
 */
export interface ApprovalWaits {
  /**
   * The session's command of `tool` in flight to a controller now waits for approval `approvalId`,
   * which expires at `expiresAt` (epoch ms on the broker's clock).
   */
  awaitingApproval(sessionId: string, tool: string, approvalId: string, expiresAt: number): void;
}

export interface ControllerBroker extends Partial<ApprovalWaits> {
  mintTicket(scope: ControllerScope): MaybePromise<MintedTicket>;
  consumeTicket(ticket: string): MaybePromise<ConsumeOutcome>;
  /**
   * The lane as this gateway knows it without waiting: exact in memory; in a cluster, the view of the
   * last `lookupLane` on this node (advisory, for tool lists and the dashboard, never for routing).
   */
  laneState(query: LaneQuery): LaneState;
  /** Present only where the lane lives elsewhere: the authoritative lane, read before routing a call. */
  lookupLane?(query: LaneQuery): Promise<LaneState>;
  attach(scope: ControllerScope, owner: object, sender: FrameSender): MaybePromise<void>;
  disconnect(scope: ControllerScope, owner: object): MaybePromise<boolean>;
  detach(scope: ControllerScope, owner: object): MaybePromise<boolean>;
  detachSession(sessionId: string): MaybePromise<object[]>;
  detachController(scope: ControllerScope): MaybePromise<object | null>;
  /**
   * Present only where a session's calls may wait on other gateways (a cluster): ends them there too,
   * for the owner's Stop, and refuses every later dispatch of the session on any gateway until
   * `resumeSession` (a call that read its session before the Stop was stored cannot slip past it).
   * Returns how many calls on other gateways were ended.
   */
  cancelSession?(sessionId: string): Promise<number>;
  /**
   * Present only where `cancelSession` is: the owner's Resume, after which the session's calls are
   * dispatched again on every gateway.
   */
  resumeSession?(sessionId: string): Promise<void>;
  dispatch(request: DispatchRequest): Promise<unknown>;
  complete(commandId: string, scope: ControllerScope, ok: boolean, payload: unknown): MaybePromise<boolean>;
  close(): MaybePromise<void>;
}

/** Runs `next` on the value now when it is one, or once the promise fulfils. */
export function settle<T, R>(value: MaybePromise<T>, next: (value: T) => R): MaybePromise<R> {
  return value instanceof Promise ? value.then(next) : next(value);
}
