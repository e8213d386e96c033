import { join } from 'node:path';
import type { BrowserSettings } from './browser-settings.js';
import type { GatewayConfig } from './schema.js';

/** The `browser.*` part of the configuration, as the CDP backends take it. */
export function browserSettingsOf(config: GatewayConfig): BrowserSettings {
  const browser = config.browser;
  return {
    executablePath: browser.executable_path ?? config.chromePathFallback,
    headed: browser.headed,
    chromiumArgs: [...browser.chromium_args],
    inactivityTimeoutSeconds: browser.inactivity_timeout,
    snapshotMaxChars: browser.snapshot_max_chars,
    commandTimeoutSeconds: browser.command_timeout,
    maxSessions: browser.max_sessions,
    maxConcurrentActions: browser.max_concurrent_actions,
    allowPrivateUrls: browser.allow_private_urls,
    allowedPrivateHosts: [...browser.allowed_private_hosts],
    dialogPolicy: browser.dialog_policy,
    dialogTimeoutSeconds: browser.dialog_timeout_s,
    downloadsDir: join(config.home, 'downloads'),
    downloadMaxBytes: Math.round(browser.download_max_mb * 1024 * 1024),
    uploadRoots: [...browser.upload_roots],
    uploadMaxBytes: Math.round(browser.upload_max_mb * 1024 * 1024),
  };
}
