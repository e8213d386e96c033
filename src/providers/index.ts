/**
 * Cloud-browser provider plugins: the API plugin authors implement (api.ts, docs/providers.md), the
 * registry and its discovery, the selection rule, the bundled providers, the `.env` in the home folder
 * and the URL policy of remote browsers.
 */
export type * from './api.js';
export type * from './plugin-context.js';
export { ProviderApiError, ProviderNotConfiguredError } from './errors.js';
export { redactSecrets } from './redact.js';
export {
  RestBrowserProvider,
  DEFAULT_REST_TIMEOUTS,
  type RestRequest,
  type RestResponse,
  type RestTimeouts,
} from './rest-provider.js';
export { ProviderRegistry, type PluginSource, type ProviderOrigin } from './registry.js';
export {
  discoverProviders,
  defaultNodeModulesDirs,
  DEFAULT_PROVIDER_TIMEOUT_MS,
  BUNDLED_PLUGINS_DIR,
  PACKAGE_ROOT,
  type Discovery,
  type DiscoveryOptions,
  type LoadedPlugin,
  type PluginDiagnostic,
  type SkippedPlugin,
} from './discovery.js';
export { GuardedProvider } from './guarded-provider.js';
export type { PluginProvider, ConfigSchemaLike } from './plugin-provider.js';
export { checkSessionMetadata } from './session-metadata.js';
export {
  selectBrowser,
  safelyAvailable,
  AUTO_DETECT_ORDER,
  CAMOFOX,
  type BrowserSelection,
  type SelectionInput,
} from './select.js';
export { loadHomeEnv, readEnvFile, writeEnvFile, envFilePath } from './env-file.js';
export { BUNDLED_PROVIDERS } from './bundled/index.js';
