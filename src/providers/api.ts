/**
 * The provider plugin API: what a cloud-browser provider implements and what a plugin's `register(ctx)`
 * receives. A provider only creates and releases remote browsers; tabgate's own CDP engine drives the
 * `cdp_url` it returns, so every provider gets the whole toolset. Plugin authors read docs/providers.md;
 * what `register(ctx)` receives is in plugin-context.ts.
 */
import type { Logger } from '../log/logger.js';

/**
 * What `createSession` returns. The key names are a contract shared with the reference system:
 * `bb_session_id` holds the provider's own session id whatever the vendor.
 */
export interface ProviderSessionMetadata {
  /** Unique per session; shows up in logs. */
  session_name: string;
  /** The provider's session id, passed back to `closeSession`/`emergencyCleanup`. */
  bb_session_id: string;
  /** A CDP websocket URL, or an http(s) URL whose `/json/version` names one. */
  cdp_url: string;
  /** The flags that were actually granted (for example `{proxies: false}` after a paid-feature fallback). */
  features: Record<string, unknown>;
  /** A billing key some gateways hand back. */
  external_call_id?: string;
  /** A URL where a person can watch or take over the browser. */
  live_url?: string;
  /** ISO 8601: after this the CDP endpoint is dead and tabgate replaces the session on the next call. */
  expires_at?: string;
}

/** One environment variable the picker asks for. */
export interface SetupEnvVar {
  key: string;
  prompt: string;
  /** Where to get the value (shown next to the prompt). */
  url?: string;
  /** Hidden while typed and never echoed back. Defaults to true for names containing KEY, TOKEN or SECRET. */
  secret?: boolean;
}

/** The provider's row in `tabgate tools`. */
export interface ProviderSetupSchema {
  name: string;
  /** Short, e.g. `paid` or `free`. */
  badge: string;
  /** One line saying what it is. */
  tag: string;
  env_vars: SetupEnvVar[];
  /** A hint printed after setup, if any. */
  post_setup?: string;
}

export interface BrowserProvider {
  /** Lowercase and stable: users write it in `browser.cloud_provider`. */
  readonly name: string;
  readonly displayName: string;
  /** Cheap and offline (env vars present): runs at start and on every picker paint. */
  isAvailable(): boolean;
  /**
   * Creates a remote browser. Throws ProviderNotConfiguredError (missing env vars) or ProviderApiError
   * (the vendor said no or could not be reached); the agent sees them, never a silent switch.
   */
  createSession(taskId: string): Promise<ProviderSessionMetadata>;
  /** Releases a session. Never throws: logs and returns false. Bounded by a timeout. */
  closeSession(sessionId: string): Promise<boolean>;
  /** Best-effort release at exit or on a signal, with a shorter timeout. Never throws. */
  emergencyCleanup(sessionId: string): Promise<boolean>;
  /** The picker row, or null to stay out of the picker. */
  getSetupSchema(): ProviderSetupSchema | null;
}

/** What every provider receives instead of reading process.env or config itself. */
export interface ProviderContext {
  /** The environment (process env plus `$TABGATE_HOME/.env`). Read it at call time: setup may change it. */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  /** The provider's own config section, `browser.<name with - as _>` in config.yaml (e.g. `browser.remote_cdp`). */
  readonly config: (providerName: string) => Readonly<Record<string, unknown>>;
}
