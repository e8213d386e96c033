/**
 * The command path on the calling node: the waiter is registered first, then one dispatch script checks
 * the lane again (exactly one controller, connected, its owner's lease alive, capable; the copy it was
 * routed from still good) and queues the command to the owner's inbox, or marks it sent when this node
 * holds the socket and writes it here.
 */
import { encodeFrame, FRAME_METHODS, TabgateError } from '../../protocol/index.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../../log/logger.js';
import type { DispatchRequest } from '../broker/controller-broker.js';
import { commandParams } from '../broker/command-params.js';
import { newCommandId } from '../broker/command-id.js';
import { stoppedByOwner } from '../stopped-by-owner.js';
import type { CallerWaiters, Waiter } from './caller-waiters.js';
import { laneKeys, stopKey, type LaneKeys } from './keys.js';
import type { LaneCopies } from './lane-copies.js';
import type { LocalLanes } from './local-lanes.js';
import * as lua from './lua.js';
import type { RedisLink } from './redis-link.js';
import { INBOX_MAXLEN, unavailable } from './redis-failures.js';
import { secretRefOf, withSecret } from './secret-ref.js';

export interface CommandDispatchOptions {
  link: RedisLink;
  nodeId: string;
  lanes: LocalLanes;
  waiters: CallerWaiters;
  clock: Clock;
  log: Logger;
  commandTimeoutMs: number;
  /** Renews this node's lease at once (a dispatch found none: Redis restarted since the last renewal). */
  renewLease: () => Promise<void>;
  copies: LaneCopies;
  /** Reads the lookup key from Redis again: → whether it still routes to this identity. */
  stillRoutesTo: (keys: LaneKeys) => Promise<boolean>;
}

export function dispatchCommand(o: CommandDispatchOptions, request: DispatchRequest): Promise<unknown> {
  const { signal } = request;
  if (signal?.aborted) {
    return Promise.reject(
      new TabgateError('controller_cancelled', 'the call was cancelled before it was sent'),
    );
  }
  const keys = laneKeys(request.scope);
  const commandId = newCommandId();
  const deadlineAt = o.clock.now() + o.commandTimeoutMs;
  // Redis gets the frame without the secret; the node holding the socket adds the value.
  const frame = encodeFrame({
    method: FRAME_METHODS.command,
    params: commandParams(request, commandId, deadlineAt),
  });
  const { secret } = request;
  const secretRef = secretRefOf(secret);
  const { waiters } = o;
  return new Promise<unknown>((resolve, reject) => {
    const onAbort = () => waiters.endEarly(commandId, 'cancelled');
    const waiter: Waiter = {
      keys,
      sessionId: request.scope.session_id,
      action: request.action,
      toolCallId: request.toolCallId,
      owner: null,
      queuedAt: performance.now(),
      settle: (outcome) => {
        // Read before the deadline goes with it: an approval outcome names the approval, as on one gateway.
        const approvalId = waiters.approvalOfCommand(commandId);
        waiters.forgetDeadline(commandId);
        signal?.removeEventListener('abort', onAbort);
        if (outcome.kind === 'ok') resolve(outcome.result);
        else reject(waiters.errorFor(commandId, outcome, approvalId));
      },
    };
    // Waiting before the command exists anywhere: its result may come through the inbox connection
    // before this connection hands over the dispatch reply, and must find its waiter.
    waiters.add(commandId, waiter);
    signal?.addEventListener('abort', onAbort, { once: true });
    const refuse = (error: TabgateError) => {
      if (!waiters.drop(commandId)) return;
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    };
    // From a copy (lane-copies.ts), the script checks this node still watches: else the copy may be
    // stale, and is read again from Redis.
    const dispatch = (fromCopy: boolean) =>
      o.link.runOnCallPath(
        lua.DISPATCH,
        [keys.idx, keys.lane, keys.pend, stopKey(request.scope.session_id), keys.watch],
        [
          keys.h,
          request.action,
          commandId,
          o.nodeId,
          JSON.stringify(request.toolCallId),
          frame,
          INBOX_MAXLEN,
          keys.S,
          secretRef ? JSON.stringify(secretRef) : '',
          fromCopy ? '1' : '',
        ],
      );
    dispatch(o.copies.has(keys.S))
      .then(async (reply) => {
        const [verdict] = reply as string[];
        if (verdict === 'nolease') {
          await o.renewLease();
          return dispatch(o.copies.has(keys.S));
        }
        if (verdict !== 'stale') return reply;
        // The lookup key changed since the copy was made. The same controller still serving it (it
        // reconnected, another lane of the key left): sent, checked as any dispatch. Another one: the
        // call chose its controller from what is gone, and is refused as it would have been a moment
        // earlier.
        o.copies.drop(keys.S);
        if (!(await o.stillRoutesTo(keys))) return ['none'];
        return dispatch(false);
      })
      .then(
        (reply) => {
          const [verdict, gen, owner] = reply as string[];
          if (verdict === 'stopped') {
            // The owner's Stop, taken on any node since this call read its session.
            refuse(stoppedByOwner(`${request.action} was not sent`));
            return;
          }
          if (verdict !== 'local' && verdict !== 'remote') {
            refuse(
              new TabgateError(
                'controller_unavailable',
                verdict === 'owner_gone'
                  ? `the gateway holding the bound browser controller is gone; ${request.action} was not sent`
                  : verdict === 'unpaired'
                    ? `bound browser controller was not paired by its owner and may not receive a vault secret; ${request.action} was not sent`
                    : `bound browser controller cannot execute ${request.action}`,
              ),
            );
            return;
          }
          if (verdict === 'remote') {
            waiter.owner = owner ?? null;
            return;
          }
          const lane = o.lanes.get(keys.h);
          try {
            if (!lane || lane.gen !== gen) throw new Error('the socket moved');
            lane.sender(secret ? withSecret(frame, secret) : frame);
          } catch (error) {
            o.log.warn('controller send failed', { reason: (error as Error).message });
            waiters.finishLocal(commandId, { kind: 'cancelled' });
          }
        },
        () => refuse(unavailable(request.action)),
      );
  });
}
