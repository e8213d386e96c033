/** The CDP backends: the local Chromium (default) and any browser reached by a CDP URL. */
export { createLocalChromiumBackend, type LocalChromiumOptions } from './local-backend.js';
export { createCdpUrlBackend, resolveCdpEndpoint, type CdpUrlBackendOptions } from './cdp-url-backend.js';
export { EngineBackend, type BrowserSource, type OpenBrowser } from './engine-backend.js';
export { CdpConnection } from './cdp-connection.js';
export { launchChromium, BASE_FLAGS, DEFAULT_CHROMIUM, type ChromiumProcess } from './chromium-process.js';
