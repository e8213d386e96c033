/**
 * Which controllers may receive a secret's value: only those registered with a pairing token, that is
 * an extension the owner approved. The API key can register a controller too (protocol v1 allows it),
 * and the API key is the agent's: a controller it registered would hand the value straight to the
 * agent. Kept by scope object, which the broker carries from registration to the socket unchanged; a
 * scope this module never saw (another gateway's, a store that copies) gets no secret: it fails closed.
 */
import type { ControllerScope } from '../broker/scope.js';
import type { Caller } from '../service.js';

const ownerPaired = new WeakSet<ControllerScope>();

export function noteRegistration(caller: Caller, scope: ControllerScope): void {
  if (caller.credential === 'pairing_token') ownerPaired.add(scope);
}

export function mayReceiveSecrets(scope: ControllerScope): boolean {
  return ownerPaired.has(scope);
}
