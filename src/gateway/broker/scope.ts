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

/** Every key is a JSON array of its fields: unambiguous whatever characters the ids hold. */
const keyOf = (...fields: string[]): string => JSON.stringify(fields);

/** Each scope's identity key, built once: a scope is never changed (a reconnect brings a new one). */
const identities = new WeakMap<ControllerScope, string>();

export const identityKey = (s: ControllerScope): string => {
  let key = identities.get(s);
  if (key === undefined) {
    key = keyOf(
      s.principal_id,
      s.profile_id,
      s.session_id,
      s.controller_id,
      s.browser_profile_id,
      s.transport_family,
    );
    identities.set(s, key);
  }
  return key;
};

export const laneKey = (s: ControllerScope): string =>
  keyOf(s.principal_id, s.profile_id, s.session_id, s.transport_family);

/**
 * The key an agent's call looks controllers up by: (session, principal, transport family), as the
 * reference router does. Two profiles of one principal in one session are thus *ambiguous*, and an
 * ambiguous lookup fails closed.
 */
export const sessionLookupKey = (sessionId: string, principalId: string, family: string): string =>
  keyOf(sessionId.trim(), principalId.trim(), family.trim());

export const lookupKeyOfScope = (s: ControllerScope): string =>
  sessionLookupKey(s.session_id, s.principal_id, s.transport_family);
