/**
 * The owner's credential, built once and used by every owner-only act (approving a pairing, revoking
 * one, releasing a bound session, signing in a browser): the operator key for the owner's CLI, and
 * browser sessions signed in through one-time links.
 */
import type { Clock } from '../clock.js';
import type { Route } from '../http/route-table.js';
import { OperatorAuth } from './operator-auth.js';
import { ensureOperatorKey } from './operator-key.js';
import { operatorRoutes, signInLink } from './operator-routes.js';
import { OperatorSignIn } from './operator-sign-in.js';

export { OperatorAuth, operatorRequired, OPERATOR_PROOF_HEADER } from './operator-auth.js';
export { operatorKeyFile, readOperatorKey } from './operator-key.js';
export { SIGN_IN_LINKS_PATH } from './operator-routes.js';

export interface Operator {
  key: string;
  auth: OperatorAuth;
  routes: Route[];
  /** A one-time link that signs a browser in and goes on to `next` (a path on the gateway). */
  link(baseUrl: string, next: string | null): string;
}

export function createOperator(deps: { home: string; clock: Clock }): Operator {
  const key = ensureOperatorKey(deps.home);
  const signIn = new OperatorSignIn();
  return {
    key,
    auth: new OperatorAuth(key, signIn, deps.clock),
    routes: operatorRoutes(signIn, deps.clock),
    link: (baseUrl, next) => signInLink(baseUrl, signIn.mintCode(deps.clock.now()).code, next),
  };
}
