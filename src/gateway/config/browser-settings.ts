import type { DialogPolicy } from '../../engine/dialogs.js';

/**
 * What the CDP backends need from configuration, resolved once at start (config → this object), so a
 * backend never reads files or the environment itself.
 */
/**
 * Sized on the reference machine (2 cores, 24 GB; docs/gateway.md, "Admission"): memory would hold many
 * more contexts, but every new session's first navigation competes for the same two cores, and 20 is
 * what a burst of new sessions gets served at acceptable latency there.
 */
export const DEFAULT_MAX_SESSIONS = 20;
export const DEFAULT_MAX_CONCURRENT_ACTIONS = 4;
/** Below this an agent thinking between two calls would find its session reset. */
export const MIN_INACTIVITY_TIMEOUT_SECONDS = 30;

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
  /** `browser.max_sessions`: browser contexts (provider sessions) open at once; more wait, then `browser_busy`. */
  maxSessions: number;
  /** `browser.max_concurrent_actions`: tool calls running at once per browser; more wait, then `browser_busy`. */
  maxConcurrentActions: number;
  /** `browser.allow_private_urls`: lets remote backends open private addresses. */
  allowPrivateUrls: boolean;
  /** `browser.allowed_private_hosts`: private hosts a remote backend may open all the same. */
  allowedPrivateHosts: string[];
  /** `browser.dialog_policy`: `ask` (browser_dialog answers), `accept` or `dismiss`. */
  dialogPolicy: DialogPolicy;
  /** `browser.dialog_timeout_s`: an unanswered dialog is dismissed after this. */
  dialogTimeoutSeconds: number;
  /** `$TABGATE_HOME/downloads`: each session's downloads go in a folder of its own under it; none: refused. */
  downloadsDir: string | undefined;
  /** `browser.download_max_mb`. */
  downloadMaxBytes: number;
  /** `browser.upload_roots`: the only folders browser_upload reads from. */
  uploadRoots: string[];
  /** `browser.upload_max_mb`. */
  uploadMaxBytes: number;
}

export const DEFAULT_BROWSER_SETTINGS: BrowserSettings = {
  executablePath: undefined,
  headed: false,
  chromiumArgs: [],
  inactivityTimeoutSeconds: 120,
  snapshotMaxChars: 15_000,
  commandTimeoutSeconds: 30,
  maxSessions: DEFAULT_MAX_SESSIONS,
  maxConcurrentActions: DEFAULT_MAX_CONCURRENT_ACTIONS,
  allowPrivateUrls: false,
  allowedPrivateHosts: [],
  dialogPolicy: 'ask',
  dialogTimeoutSeconds: 60,
  downloadsDir: undefined,
  downloadMaxBytes: 100 * 1024 * 1024,
  uploadRoots: [],
  uploadMaxBytes: 50 * 1024 * 1024,
};
