import type { ControllerCapability } from '../../protocol/index.js';
import type { ControllerScope } from '../broker/scope.js';
import { noteRegistration } from '../secrets/index.js';
import type { Caller } from '../service.js';

/**
 * A scope read back from Redis is a new object, which the vault does not know: one its owner paired
 * (registered with a pairing token, as Redis recorded at registration) is made known again, so a
 * fill may go to it; any other gets no secret, as on one gateway.
 */
export function scopeOf(json: string, paired: boolean, caps?: string): ControllerScope {
  const parsed = JSON.parse(json) as ControllerScope;
  // A lane keeps its capabilities once, as the ",a,b," list the dispatch script checks.
  const scope: ControllerScope =
    caps === undefined
      ? parsed
      : { ...parsed, capabilities: caps.split(',').filter(Boolean) as ControllerCapability[] };
  if (paired) noteRegistration({ credential: 'pairing_token' } as Caller, scope);
  return scope;
}
