/**
 * A controller's scope: who it acts for (identity) and what it may do (negotiated capabilities).
 * Identity is the six non-capability fields, so a reconnect may renegotiate capabilities and still be
 * the same controller. The lane (principal, profile, session, transport family) holds at most one
 * identity: a different controller or browser profile in the same lane replaces the old one.
 */
import type { ControllerCapability, TransportFamily } from '../../protocol/index.js';

export interface ControllerScope {
  readonly principal_id: string;
  readonly profile_id: string;
  readonly session_id: string;
  readonly controller_id: string;
  readonly browser_profile_id: string;
  readonly transport_family: TransportFamily;
  readonly capabilities: readonly ControllerCapability[];
}

/** Who an agent's call is made by, for finding the controller of its session. */
export interface LaneQuery {
  principalId: string;
  profileId: string;
  sessionId: string;
  transportFamily: TransportFamily;
}

// Scopes are immutable and reused for every call, so their keys are computed once.
const identityKeys = new WeakMap<ControllerScope, string>();
const lookupKeys = new WeakMap<ControllerScope, string>();

// JSON arrays keep keys unambiguous whatever characters the ids hold.
export function identityKey(s: ControllerScope): string {
  let key = identityKeys.get(s);
  if (key === undefined) identityKeys.set(s, (key = computeIdentityKey(s)));
  return key;
}

const computeIdentityKey = (s: ControllerScope): string =>
  JSON.stringify([
    s.principal_id,
    s.profile_id,
    s.session_id,
    s.controller_id,
    s.browser_profile_id,
    s.transport_family,
  ]);

export const laneKey = (s: ControllerScope): string =>
  JSON.stringify([s.principal_id, s.profile_id, s.session_id, s.transport_family]);

/**
 * The key an agent's call looks controllers up by: (session, principal, transport family), as the
 * reference router does. Two profiles of one principal in one session are thus *ambiguous*, and an
 * ambiguous lookup fails closed.
 */
export function sessionLookupKey(sessionId: string, principalId: string, family: string): string {
  const session = sessionId.trim();
  const principal = principalId.trim();
  // Made for every tool call: length prefixes keep it unambiguous at less cost than JSON.
  return `${session.length}:${session}${principal.length}:${principal}${family.trim()}`;
}

export function lookupKeyOfScope(s: ControllerScope): string {
  let key = lookupKeys.get(s);
  if (key === undefined)
    lookupKeys.set(s, (key = sessionLookupKey(s.session_id, s.principal_id, s.transport_family)));
  return key;
}
