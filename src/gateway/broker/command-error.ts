/**
 * How a command that did not succeed ends for its caller: one typed error per outcome, shared by the
 * embedded broker and the cluster broker so an agent reads the same code and words on either.
 */
import { TabgateError } from '../../protocol/index.js';
import type { CommandOutcome } from './commands.js';
import { describeRejection, rejectionCode, rejectionRule } from './rejection.js';

/**
 * The controller's approval outcomes, which every other browser answers as these very codes: one code
 * for one outcome, whichever browser held the action. The controller's frame is protocol v1's
 * rejection; only what the agent reads changes.
 */
const APPROVAL_OUTCOMES = ['approval_denied', 'approval_timeout', 'approval_required'] as const;
const isApprovalOutcome = (code: string | undefined): code is (typeof APPROVAL_OUTCOMES)[number] =>
  (APPROVAL_OUTCOMES as readonly (string | undefined)[]).includes(code);

/** The controller's own words without its code, which the error's code now says. */
function messageOf(error: unknown): string {
  const message = (error as { message?: unknown }).message;
  return describeRejection(typeof message === 'string' ? message : error);
}

export function commandError(
  commandId: string,
  outcome: Exclude<CommandOutcome, { kind: 'ok' }>,
  commandTimeoutMs: number,
  /** The approval the command waited for, when the gateway's approval book knows it. */
  approvalId?: string,
): TabgateError {
  switch (outcome.kind) {
    case 'timeout':
      return new TabgateError(
        'controller_timeout',
        `controller did not complete command '${commandId}' within ${commandTimeoutMs / 1000}s`,
      );
    case 'cancelled':
      return new TabgateError('controller_cancelled', `command '${commandId}' was cancelled`);
    case 'rejected': {
      const code = rejectionCode(outcome.error);
      if (isApprovalOutcome(code))
        return new TabgateError(
          code,
          `the user's browser: ${messageOf(outcome.error)}`,
          approvalId ? { approval_id: approvalId } : undefined,
        );
      const rule = rejectionRule(outcome.error);
      return new TabgateError(
        'controller_rejected',
        `controller rejected command '${commandId}': ${describeRejection(outcome.error)}`,
        rule ? { controller_code: code, rule } : { controller_code: code },
      );
    }
  }
}
