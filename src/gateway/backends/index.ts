/**
 * Composition point of the browser backends: which backend serves a session that no controller holds.
 * The local Chromium backend replaces the placeholder below when the engine lands.
 */
import type { Logger } from '../logger.js';
import type { BrowserBackend } from './backend.js';
import type { BrowserSettings } from './settings.js';
import { UnavailableBackend } from './unavailable.js';

export type { BrowserBackend, ToolCall } from './backend.js';
export { DEFAULT_BROWSER_SETTINGS, type BrowserSettings } from './settings.js';

export interface BackendDependencies {
  settings: BrowserSettings;
  log: Logger;
}

export function createDefaultBackend(_deps: BackendDependencies): BrowserBackend {
  return new UnavailableBackend(
    'no browser backend is available yet for sessions without a bound browser controller (the local Chromium backend is not part of this build).',
  );
}
