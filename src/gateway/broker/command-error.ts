/**
 * How a command that did not succeed ends for its caller: one typed error per outcome, shared by the
 * embedded broker and the cluster broker so an agent reads the same code and words on either.
 */
import { TabgateError } from '../../protocol/index.js';
import type { CommandOutcome } from './commands.js';
import { describeRejection, rejectionCode } from './rejection.js';

export function commandError(
  commandId: string,
  outcome: Exclude<CommandOutcome, { kind: 'ok' }>,
  commandTimeoutMs: number,
): TabgateError {
  switch (outcome.kind) {
    case 'timeout':
      return new TabgateError(
        'controller_timeout',
        `controller did not complete command '${commandId}' within ${commandTimeoutMs / 1000}s`,
      );
    case 'cancelled':
      return new TabgateError('controller_cancelled', `command '${commandId}' was cancelled`);
    case 'rejected':
      return new TabgateError(
        'controller_rejected',
        `controller rejected command '${commandId}': ${describeRejection(outcome.error)}`,
        { controller_code: rejectionCode(outcome.error) },
      );
  }
}
