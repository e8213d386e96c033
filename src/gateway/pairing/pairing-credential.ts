/**
 * The pairing token as a bearer credential. It acts for the gateway's owner (the same principal and
 * profile as the API key), so a controller registered with it lands in the lane of the owner's agents;
 * `credential: 'pairing_token'` is what keeps it to the routes a controller needs.
 */
import { DEFAULT_PROFILE_ID, OWNER_PRINCIPAL_ID, type CredentialVerifier } from '../auth/authenticator.js';
import type { PairingService } from './pairing-service.js';

export function pairingTokenCredential(service: PairingService): CredentialVerifier {
  return {
    verify: (bearer) => {
      const grant = service.verifyToken(bearer);
      if (!grant) return null;
      return {
        principalId: OWNER_PRINCIPAL_ID,
        profileId: DEFAULT_PROFILE_ID,
        credential: 'pairing_token',
        credentialId: grant.grant_id,
      };
    },
  };
}
