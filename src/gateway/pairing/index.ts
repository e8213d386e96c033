export * from './pairing-service.js';
export * from './grant-store.js';
export * from './pairing-routes.js';
export * from './pairing-credential.js';
export { normalizePairingCode, newPairingCode } from './code.js';
export { PAIRING_TTL_SECONDS } from './pending-pairings.js';
