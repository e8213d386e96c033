/**
 * What the CDP backends need from configuration, resolved once at start (config → this object), so a
 * backend never reads files or the environment itself.
 */
export interface BrowserSettings {
  /** Explicit browser binary (`browser.executable_path`, else `CHROME_PATH`); else Debian's /usr/bin/chromium. */
  executablePath: string | undefined;
  /** `browser.headed`: show a window where a display exists. */
  headed: boolean;
  /** `browser.chromium_args`: extra flags appended to tabgate's own. */
  chromiumArgs: string[];
  /** `browser.inactivity_timeout`, seconds: an idle session's browser context is closed after this. */
  inactivityTimeoutSeconds: number;
  /** `browser.snapshot_max_chars`: the hard budget of one snapshot response. */
  snapshotMaxChars: number;
  /** `browser.command_timeout`, seconds: the cap on one tool call, navigation included. */
  commandTimeoutSeconds: number;
  /** `browser.allow_private_urls`: lets remote backends open private addresses. */
  allowPrivateUrls: boolean;
  /** `browser.allowed_private_hosts`: private hosts a remote backend may open all the same. */
  allowedPrivateHosts: string[];
}

export const DEFAULT_BROWSER_SETTINGS: BrowserSettings = {
  executablePath: undefined,
  headed: false,
  chromiumArgs: [],
  inactivityTimeoutSeconds: 120,
  snapshotMaxChars: 15_000,
  commandTimeoutSeconds: 30,
  allowPrivateUrls: false,
  allowedPrivateHosts: [],
};
