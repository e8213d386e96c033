/**
 * The browser backends behind sessions that no controller holds. Which one serves a gateway is chosen
 * once at start by `resolveBackend` (resolve.ts): a CDP URL override, a cloud provider, or the local
 * Chromium tabgate launches itself — all driven by the same engine.
 */
export type { BrowserBackend, ToolCall } from './backend.js';
export { DEFAULT_BROWSER_SETTINGS, type BrowserSettings } from '../config/browser-settings.js';
export { createCdpUrlBackend, createLocalChromiumBackend, type CdpUrlBackendOptions } from './cdp/index.js';
export { resolveBackend, type ResolvedBackend } from './resolve.js';
