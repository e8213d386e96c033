/**
 * The binding rule: a session that a user's browser has served stays that browser's. Stop, revoke, a
 * dropped socket and a gateway restart leave the session bound, so its calls fail closed; only the
 * browser sharing a tab again, or the owner releasing the session, changes that. The binding is stored
 * with the session (it outlives the gateway) and changes only through the broker's observer below.
 */
import type { ControllerScope } from './broker/scope.js';

/** `bound`: a controller holds (or last held) it; `stopped`: the user stopped sharing; `revoked`: its pairing was revoked. */
export type BindingState = 'bound' | 'stopped' | 'revoked';

export interface SessionBinding {
  state: BindingState;
  /** ISO 8601: when the state last changed. */
  since: string;
  /** The controller that holds or last held the session. */
  controller_id: string | null;
}

/** What the broker reports as lanes come and go; the gateway stores it with the session. */
export interface BindingObserver {
  /** A controller attached to the session (a first share, a share again, a reconnect). */
  bound(scope: ControllerScope): void;
  /** The session's last controller went away on purpose: the user stopped, or its pairing was revoked. */
  released(scope: ControllerScope, why: Exclude<BindingState, 'bound'>): void;
}
