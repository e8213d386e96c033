/**
 * What an agent reads when the owner's Stop ends or refuses its call: one code and one wording, whether
 * the call waited on the gateway that took the Stop or, in a cluster, on another.
 */
import { TabgateError } from '../protocol/index.js';

export function stoppedByOwner(what: string): TabgateError {
  return new TabgateError(
    'session_stopped_by_owner',
    `The gateway's owner stopped this session; ${what}. Nothing runs in it until they resume it.`,
  );
}
