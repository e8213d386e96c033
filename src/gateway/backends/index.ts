/**
 * Composition point of the browser backends: which backend serves a session that no controller holds.
 * The default is the local Chromium that tabgate launches itself on first use; a browser reached by a
 * CDP URL (`browser.cdp_url`) or a provider session uses the same engine through `createCdpUrlBackend`.
 */
import type { Logger } from '../../log/logger.js';
import type { BrowserBackend } from './backend.js';
import { createLocalChromiumBackend } from './cdp/index.js';
import type { BrowserSettings } from './settings.js';

export type { BrowserBackend, ToolCall } from './backend.js';
export { DEFAULT_BROWSER_SETTINGS, type BrowserSettings } from './settings.js';
export { createCdpUrlBackend, createLocalChromiumBackend, type CdpUrlBackendOptions } from './cdp/index.js';

export interface BackendDependencies {
  settings: BrowserSettings;
  log: Logger;
}

export function createDefaultBackend(deps: BackendDependencies): BrowserBackend {
  return createLocalChromiumBackend(deps.settings, deps.log);
}
