/**
 * What a `browser.controller.command` frame carries for one dispatch: built in one place for the
 * embedded broker and the cluster broker, so a controller gets the same fields whichever node sends.
 * The vault secret is not among them: each broker adds it only where the frame goes to the socket.
 * `deadline_at` leaves room for an approval the controller may wait for; the broker's own deadline is
 * what ends the command, with a cancel frame.
 */
import type { CommandParams } from '../../protocol/index.js';
import type { DispatchRequest } from './controller-broker.js';

export function commandParams(
  request: DispatchRequest,
  commandId: string,
  deadlineAt: number,
): CommandParams {
  return {
    command_id: commandId,
    action: request.action,
    arguments: request.arguments,
    controller_id: request.scope.controller_id,
    browser_profile_id: request.scope.browser_profile_id,
    tool_call_id: request.toolCallId,
    deadline_at: deadlineAt + (request.approvalWindowMs ?? 0),
  };
}
