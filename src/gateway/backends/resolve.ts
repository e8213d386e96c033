/**
 * Chooses the browser that serves sessions no controller holds, once at start: a CDP URL override
 * (`BROWSER_CDP_URL` / `browser.cdp_url`) beats every provider; else the configured or auto-detected
 * cloud provider; else the local Chromium. Provider credentials may live in `$TABGATE_HOME/.env`
 * (written by `tabgate tools`); the real environment wins over that file.
 */
import {
  discoverProviders,
  loadHomeEnv,
  selectBrowser,
  type BrowserSelection,
  type PluginDiagnostic,
} from '../../providers/index.js';
import type { GatewayConfig } from '../config/index.js';
import { browserSettingsOf } from '../config/index.js';
import type { Logger } from '../../log/logger.js';
import type { BrowserBackend } from './backend.js';
import type { SiteRulesSource } from './site-rules-source.js';
import { createCdpUrlBackend, createLocalChromiumBackend } from './cdp/index.js';
import { createProviderBackend } from './providers/index.js';

export interface ResolvedBackend {
  backend: BrowserBackend;
  selection: BrowserSelection;
  /** Plugins that could not be loaded, for `tabgate doctor`. */
  diagnostics: PluginDiagnostic[];
  /** Removes process-wide hooks (provider emergency cleanup) after a clean shutdown. */
  dispose(): void;
}

export async function resolveBackend(options: {
  config: GatewayConfig;
  env: Readonly<Record<string, string | undefined>>;
  log: Logger;
  /** Site grants for the CDP backends (docs/safety.md). */
  sites?: SiteRulesSource;
}): Promise<ResolvedBackend> {
  const { config, log, sites } = options;
  const env: Record<string, string | undefined> = { ...options.env };
  const loaded = loadHomeEnv(config.home, env);
  if (loaded.length > 0) log.info('loaded provider settings from the home .env', { keys: loaded.join(',') });
  const settings = browserSettingsOf(config);
  const { registry, diagnostics } = await discoverProviders({
    env,
    log,
    home: config.home,
    enabled: config.plugins.enabled,
    providerConfig: { 'remote-cdp': config.browser.remote_cdp },
  });
  const selection = selectBrowser({
    cloudProvider: config.browser.cloud_provider,
    cdpUrl: config.browser.cdp_url ?? env.BROWSER_CDP_URL,
    registry,
    log,
  });
  switch (selection.kind) {
    case 'cdp-url':
      log.info('browser backend: CDP URL override');
      return {
        backend: createCdpUrlBackend({ cdpUrl: selection.cdpUrl, sites }, settings, log),
        selection,
        diagnostics,
        dispose() {},
      };
    case 'provider': {
      log.info('browser backend: cloud provider', {
        provider: selection.provider.name,
        reason: selection.reason,
      });
      const { backend, emergency } = createProviderBackend({
        provider: selection.provider,
        settings,
        log,
        openCdpUrl: (target) => createCdpUrlBackend({ ...target, sites }, settings, log),
      });
      return { backend, selection, diagnostics, dispose: () => emergency.dispose() };
    }
    case 'local':
      return {
        backend: createLocalChromiumBackend(settings, log, options.env, sites),
        selection,
        diagnostics,
        dispose() {},
      };
  }
}
