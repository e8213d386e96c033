export { Vault, MIN_SECRET_CHARS, type SecretListing } from './vault.js';
export { SecretGuard } from './secret-guard.js';
export { VaultSnapshot } from './vault-snapshot.js';
export { noteRegistration, mayReceiveSecrets } from './paired-controllers.js';
export { vaultFile, vaultKeyFile } from './vault-files.js';
export { formsOf, markerOf } from './secret-forms.js';
