/**
 * Everything the service worker must remember, in chrome.storage, because Chrome stops an idle worker
 * after ~30 s and anything held only in memory is then gone. Long-lived facts (the pairing token, the
 * controller identity, the shared tabs) live in `local`; per-boot facts (connection status, backoff
 * step, boot count) in `session`, which a browser restart clears.
 */
import type { SecretFill, SitePolicy } from '../../protocol/index.js';
import { chrome } from '../chrome-api.js';

export const DEFAULT_GATEWAY_URL = 'http://127.0.0.1:8642';

export interface Pairing {
  token: string;
  grant_id: string;
  name: string;
}

export interface PendingPairing {
  pairing_id: string;
  code: string;
  approve_url: string;
  /** Epoch ms. */
  expires_at: number;
}

export interface Share {
  session_id: string;
  title: string | null;
  /** The tabs the agent may see and drive: the shared tab and the tabs it opened. */
  tab_ids: number[];
  /** The tab later calls act on. */
  active_tab_id: number;
  group_id: number | null;
  /**
   * The ids the agent sees: small integers per share (1 for the shared tab, then 2, 3, … for the tabs it
   * opens), as every other backend gives, keyed by chrome tab id. Chrome's own ids are large, reveal
   * nothing useful, and would differ from the engine's `new tab 2 opened` notices.
   */
  agent_ids?: Record<string, number>;
  next_agent_id?: number;
  /**
   * The origin of the page the user shared, always allowed (but for `sites.deny`); null when the tab
   * showed no site (a new tab page). Absent in a share written before site rules existed.
   */
  shared_origin?: string | null;
}

/** The site policy of the shared session as the gateway last gave it (site-policy-state.ts). */
export interface StoredSitePolicy {
  session_id: string;
  policy: SitePolicy;
  granted: string[];
  requested: string[];
  /** Epoch ms. */
  fetched_at: number;
}

export interface Identity {
  controller_id: string;
  browser_profile_id: string;
}

/** What the last look at the gateway found, for the popup; `unknown` until one was made. */
export type GatewayCheck = 'unknown' | 'ok' | 'feature_off' | 'unreachable';

export type ConnectionState = 'idle' | 'connecting' | 'connected' | 'offline' | 'stopped';

export interface Status {
  state: ConnectionState;
  /** Why the controller stopped retrying, or what the last attempt ran into. */
  error: { code: string; message: string } | null;
  /** Reconnect attempts since the last success (indexes the backoff). */
  attempt: number;
}

interface LocalShape {
  gateway_url: string;
  pairing: Pairing | null;
  pending_pairing: PendingPairing | null;
  share: Share | null;
  identity: Identity | null;
  /** The gateway refused the token this browser held: the pairing is gone until the person pairs again. */
  revoked: boolean;
}

interface SessionShape {
  status: Status;
  boot_count: number;
  pairing_error: { code: string; message: string } | null;
  gateway_check: GatewayCheck;
  site_policy: StoredSitePolicy | null;
  /**
   * The origin of each shared tab's page at the agent's last snapshot, by chrome tab id: what
   * `domain_changed` compares with, kept here so a worker Chrome restarted still knows it.
   */
  snapshot_origins: Record<string, string>;
  /**
   * The vault secrets filled in the share, which no request of its tabs may carry off (tab-network.ts):
   * in memory only (session storage is never written to disk), so a worker Chrome restarted still
   * guards them; dropped when the share ends.
   */
  filled_secrets: { session_id: string; fills: SecretFill[] } | null;
}

const LOCAL_DEFAULTS: LocalShape = {
  gateway_url: DEFAULT_GATEWAY_URL,
  pairing: null,
  pending_pairing: null,
  share: null,
  identity: null,
  revoked: false,
};

const SESSION_DEFAULTS: SessionShape = {
  status: { state: 'idle', error: null, attempt: 0 },
  boot_count: 0,
  pairing_error: null,
  gateway_check: 'unknown',
  site_policy: null,
  snapshot_origins: {},
  filled_secrets: null,
};

export async function readLocal<K extends keyof LocalShape>(key: K): Promise<LocalShape[K]> {
  const got = await chrome.storage.local.get(key);
  return (got[key] as LocalShape[K] | undefined) ?? LOCAL_DEFAULTS[key];
}

export async function writeLocal<K extends keyof LocalShape>(key: K, value: LocalShape[K]): Promise<void> {
  await chrome.storage.local.set({ [key]: value });
}

/** Several keys in one storage write: a reader (or a restarted worker) never sees half of a change. */
export async function writeLocals(items: Partial<LocalShape>): Promise<void> {
  await chrome.storage.local.set(items);
}

export async function readSession<K extends keyof SessionShape>(key: K): Promise<SessionShape[K]> {
  const got = await chrome.storage.session.get(key);
  return (got[key] as SessionShape[K] | undefined) ?? SESSION_DEFAULTS[key];
}

export async function writeSession<K extends keyof SessionShape>(
  key: K,
  value: SessionShape[K],
): Promise<void> {
  await chrome.storage.session.set({ [key]: value });
}

/** This browser profile's controller identity, made once and kept, so a reconnect is the same controller. */
export async function identity(): Promise<Identity> {
  const stored = await readLocal('identity');
  if (stored) return stored;
  const made: Identity = {
    controller_id: `tabgate-ext-${crypto.randomUUID()}`,
    browser_profile_id: `profile-${crypto.randomUUID()}`,
  };
  await writeLocal('identity', made);
  return made;
}
