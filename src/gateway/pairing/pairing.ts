/**
 * Pairing as the gateway composes it: the grants (held in memory, over the store), the service, the
 * bearer credential for its tokens, the routes, and revocation wired to the broker. `server.ts` needs
 * only this one call and three lines of wiring.
 */
import type { CredentialVerifier } from '../auth/authenticator.js';
import type { ControllerBroker } from '../broker/controller-broker.js';
import type { Clock } from '../clock.js';
import type { RegistrationResponse } from '../controller-registration.js';
import type { OriginGuard } from '../guards/origin.js';
import type { Route } from '../http/route-table.js';
import type { Logger } from '../../log/logger.js';
import type { OperatorAuth } from '../operator/index.js';
import type { Caller } from '../service.js';
import type { PairingGrants } from './grant-mirror.js';
import { GrantControllers, type GrantSession } from './grant-controllers.js';
import { pairingTokenCredential } from './pairing-credential.js';
import { pairingRoutes } from './pairing-routes.js';
import { PairingService } from './pairing-service.js';

export interface Pairing {
  service: PairingService;
  credential: CredentialVerifier;
  routes: Route[];
  /** For the registration route's `onRegistered`. */
  onRegistered: (caller: Caller, registration: RegistrationResponse) => void;
  /** The sessions a grant's controllers hold, and whether each is connected now. */
  sessionsOf: (grantId: string) => GrantSession[];
}

export function createPairing(deps: {
  grants: PairingGrants;
  clock: Clock;
  log: Logger;
  originGuard: OriginGuard;
  broker: ControllerBroker;
  operator: OperatorAuth;
}): Pairing {
  const service = new PairingService({
    grants: deps.grants,
    clock: deps.clock,
    log: deps.log,
    isAllowedOrigin: (origin) => deps.originGuard.allows(origin),
  });
  const controllers = new GrantControllers();
  service.onRevoke((grantId) => controllers.revoke(grantId, deps.broker));
  // Revoked through another gateway sharing the store: this gateway's sockets of it close too.
  deps.grants.onRevoked((grantId) => {
    deps.log.info('pairing revoked through another gateway', { grant_id: grantId });
    service.revoked(grantId);
  });
  return {
    service,
    credential: pairingTokenCredential(service),
    routes: pairingRoutes(service, deps.operator),
    onRegistered: (caller, registration) => controllers.recordRegistration(caller, registration),
    sessionsOf: (grantId) => controllers.sessionsOf(grantId, deps.broker),
  };
}
