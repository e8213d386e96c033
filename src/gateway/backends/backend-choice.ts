/**
 * One resolution of "which browser serves sessions": config and the home .env → discovery → selection →
 * a backend. A CDP URL override beats every provider; else the configured or auto-detected cloud
 * provider; else the local Chromium. Provider credentials may live in `$TABGATE_HOME/.env` (written by
 * `tabgate tools`); the real environment wins over that file.
 */
import {
  CAMOFOX,
  discoverProviders,
  loadHomeEnv,
  selectBrowser,
  type BrowserSelection,
  type LoadedPlugin,
  type PluginDiagnostic,
} from '../../providers/index.js';
import type { Logger } from '../../log/logger.js';
import type { TimerClock } from '../clock.js';
import { browserSettingsOf, pluginSection, sectionKey, type GatewayConfig } from '../config/index.js';
import type { BrowserBackend } from './backend.js';
import type { SiteRulesSource } from './site-rules-source.js';
import { createCdpUrlBackend, createLocalChromiumBackend } from './cdp/index.js';
import { createProviderBackend, providerDiscoveryOptions } from './providers/index.js';
import { CamofoxBackend } from './camofox/camofox-backend.js';
import { CheckedResults } from './checked-results.js';
import { UnavailableBackend } from './unavailable.js';

const stringIn = (section: Readonly<Record<string, unknown>>, key: string): string | undefined =>
  typeof section[key] === 'string' ? section[key] : undefined;

export interface BackendChoice {
  /** Equal keys mean the same browser would be built: a re-read that changes nothing keeps the backend. */
  key: string;
  backend: BrowserBackend;
  selection: BrowserSelection;
  diagnostics: PluginDiagnostic[];
  /** Removes process-wide hooks (provider emergency cleanup). */
  dispose(): void;
}

/** A `browser.<name>` mapping no loaded plugin provides is a typo or a plugin that is not installed. */
function warnUnclaimedSections(config: GatewayConfig, plugins: LoadedPlugin[], log: Logger): void {
  const claimed = new Set(
    [CAMOFOX, ...plugins.flatMap((plugin) => [plugin.name, ...plugin.providers])].map((name) =>
      sectionKey(name),
    ),
  );
  for (const key of Object.keys(config.pluginSections))
    if (!claimed.has(key))
      log.warn('unknown config key ignored (no installed plugin provides it)', { key: `browser.${key}` });
}

export async function chooseBackend(options: {
  config: GatewayConfig;
  env: Readonly<Record<string, string | undefined>>;
  log: Logger;
  /** Site grants for the CDP backends (docs/safety.md). */
  sites?: SiteRulesSource;
  /** The gateway's clock: deadlines, admission waits and idle sweeps run on it (default: the system's). */
  clock?: TimerClock;
}): Promise<BackendChoice> {
  const { config, log, sites, clock } = options;
  const env: Record<string, string | undefined> = { ...options.env };
  const loaded = loadHomeEnv(config.home, env);
  if (loaded.length > 0) log.info('loaded provider settings from the home .env', { keys: loaded.join(',') });
  const settings = browserSettingsOf(config);
  const camofox = pluginSection(config, CAMOFOX);
  const { registry, diagnostics, plugins } = await discoverProviders(
    providerDiscoveryOptions(config, env, log),
  );
  warnUnclaimedSections(config, plugins, log);
  const selection = selectBrowser({
    cloudProvider: config.browser.cloud_provider,
    cdpUrl: config.browser.cdp_url ?? env.BROWSER_CDP_URL,
    camofoxUrl: env.CAMOFOX_URL ?? stringIn(camofox, 'url'),
    registry,
    log,
  });
  const common = { selection, diagnostics };
  switch (selection.kind) {
    case 'cdp-url':
      log.info('browser backend: CDP URL override');
      return {
        ...common,
        key: JSON.stringify(['cdp-url', selection.cdpUrl, settings]),
        backend: createCdpUrlBackend({ cdpUrl: selection.cdpUrl, sites, clock }, settings, log),
        dispose() {},
      };
    case 'camofox': {
      log.info('browser backend: Camofox');
      const apiKey = env.CAMOFOX_API_KEY;
      const vncUrl = env.CAMOFOX_VNC_URL ?? stringIn(camofox, 'vnc_url');
      const userId = env.CAMOFOX_USER_ID ?? stringIn(camofox, 'user_id');
      const sessionKey = env.CAMOFOX_SESSION_KEY ?? stringIn(camofox, 'session_key');
      const backend = selection.url
        ? new CheckedResults(
            new CamofoxBackend(
              { url: selection.url, apiKey, vncUrl, userId, sessionKey, sites },
              settings,
              log,
            ),
            log,
          )
        : new UnavailableBackend(
            'Camofox is selected (browser.cloud_provider: camofox) but CAMOFOX_URL is not set; run `tabgate tools`.',
            'provider_not_configured',
          );
      return {
        ...common,
        key: JSON.stringify(['camofox', selection.url, apiKey, vncUrl, userId, sessionKey, settings]),
        backend,
        dispose() {},
      };
    }
    case 'provider': {
      const { provider } = selection;
      log.info('browser backend: cloud provider', { provider: provider.name, reason: selection.reason });
      const { backend, emergency } = createProviderBackend({
        provider,
        settings,
        log,
        openCdpUrl: (target) => createCdpUrlBackend({ ...target, sites, clock }, settings, log),
        clock,
      });
      return {
        ...common,
        // The env is part of it: new credentials must reach the next session.
        key: JSON.stringify(['provider', provider.name, settings, pluginSection(config, provider.name), env]),
        backend,
        dispose: () => emergency.dispose(),
      };
    }
    case 'local':
      return {
        ...common,
        key: JSON.stringify(['local', settings]),
        backend: createLocalChromiumBackend(settings, log, { environment: options.env, sites, clock }),
        dispose() {},
      };
  }
}
