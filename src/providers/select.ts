/**
 * Which browser serves sessions without a controller, decided once from config and the registry:
 *   1. a CDP URL (`BROWSER_CDP_URL`, then `browser.cdp_url`) overrides every provider;
 *   1b. Camofox (a REST browser, not a provider plugin) when `browser.cloud_provider: camofox`, or when
 *      `CAMOFOX_URL` is set and no other browser is named (the reference's legacy rule);
 *   2. `browser.cloud_provider: local` → the local Chromium;
 *   3. a registered name wins even when unavailable, so the user gets a credentials error rather than a
 *      silent switch to another browser;
 *   4. an unknown name is a warning, then auto-detect;
 *   5. auto-detect tries Browser Use, then Browserbase; Firecrawl (its key is often set for scraping
 *      alone) and third-party plugins are never picked without being named;
 *   6. otherwise the local Chromium.
 */
import type { Logger } from '../log/logger.js';
import type { BrowserProvider } from './api.js';
import type { ProviderRegistry } from './registry.js';

export const AUTO_DETECT_ORDER = ['browser-use', 'browserbase'] as const;
/** The `browser.cloud_provider` value that chooses Camofox. */
export const CAMOFOX = 'camofox';

export type BrowserSelection =
  | { kind: 'cdp-url'; cdpUrl: string }
  | { kind: 'camofox'; url: string | undefined }
  | { kind: 'local'; reason: 'configured' | 'nothing-configured' }
  | { kind: 'provider'; provider: BrowserProvider; reason: 'configured' | 'auto-detected' };

export interface SelectionInput {
  /** `browser.cloud_provider`, if set. */
  cloudProvider?: string | null;
  /** `BROWSER_CDP_URL` (env wins) or `browser.cdp_url`. */
  cdpUrl?: string | null;
  /** `CAMOFOX_URL` (env wins) or `browser.camofox.url`. */
  camofoxUrl?: string | null;
  registry: ProviderRegistry;
  log: Logger;
}

/** isAvailable() must be cheap and must not throw; one that throws counts as unavailable. */
export function safelyAvailable(provider: BrowserProvider, log: Logger): boolean {
  try {
    return provider.isAvailable() === true;
  } catch (error) {
    log.warn('browser provider availability check failed; treating it as unavailable', {
      provider: provider.name,
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
}

export function selectBrowser(input: SelectionInput): BrowserSelection {
  const cdpUrl = input.cdpUrl?.trim();
  if (cdpUrl) return { kind: 'cdp-url', cdpUrl };

  const configured = input.cloudProvider?.trim().toLowerCase();
  const camofoxUrl = input.camofoxUrl?.trim() || undefined;
  if (configured === CAMOFOX || (!configured && camofoxUrl)) return { kind: 'camofox', url: camofoxUrl };
  if (configured === 'local') return { kind: 'local', reason: 'configured' };
  if (configured) {
    const provider = input.registry.get(configured);
    if (provider) return { kind: 'provider', provider, reason: 'configured' };
    input.log.warn('browser.cloud_provider names no registered provider; auto-detecting instead', {
      cloud_provider: configured,
      registered:
        input.registry
          .list()
          .map((p) => p.name)
          .join(',') || 'none',
    });
  }

  for (const name of AUTO_DETECT_ORDER) {
    const provider = input.registry.get(name);
    // A user plugin that replaced one of these names was enabled on purpose, so it counts as that name.
    if (provider && safelyAvailable(provider, input.log)) {
      return { kind: 'provider', provider, reason: 'auto-detected' };
    }
  }
  return { kind: 'local', reason: 'nothing-configured' };
}
