/**
 * The cloud-provider backend. Wiring, for the gateway's composition point (see the providers report):
 *   const { registry } = await discoverProviders({...});
 *   const selection = selectBrowser({ cloudProvider, cdpUrl, registry, log });
 *   selection.kind === 'provider' → createProviderBackend({ provider, settings, log,
 *     openCdpUrl: (target) => createCdpUrlBackend(target, settings, log) })
 */
import { installEmergencyCleanup, type EmergencyHooks } from './emergency.js';
import { ProviderBackend, type ProviderBackendOptions } from './provider-backend.js';

export {
  ProviderBackend,
  type CdpUrlTarget,
  type OpenCdpUrl,
  type ProviderBackendOptions,
} from './provider-backend.js';
export { installEmergencyCleanup, type EmergencyHooks } from './emergency.js';
export { providerDiscoveryOptions } from './discovery-options.js';

export interface ProviderBackendHandle {
  backend: ProviderBackend;
  /** The SIGINT/SIGTERM/exit listeners; dispose() after a clean shutdown. */
  emergency: EmergencyHooks;
}

/** A provider backend with its emergency cleanup installed on the process. */
export function createProviderBackend(
  options: ProviderBackendOptions & { installSignalHandlers?: boolean; process?: NodeJS.Process },
): ProviderBackendHandle {
  const backend = new ProviderBackend(options);
  const emergency =
    options.installSignalHandlers === false
      ? { dispose() {} }
      : installEmergencyCleanup(backend, options.log, options.process ?? process);
  return { backend, emergency };
}
