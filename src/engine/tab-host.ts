/**
 * Where the engine finds tabs: a browser context over CDP (`ContextSession`), or, in the extension, the
 * tabs the user leased to a session through `chrome.tabs` + `chrome.debugger`. The tools only need this.
 */
import type { DownloadInfo, SecretFill, TabInfo } from '../protocol/index.js';
import type { HeldRequest } from './action-gate.js';
import type { Tab } from './tab.js';

export interface TabHost {
  /** The tab calls act on; a host with no tab opens one. */
  activeTab(): Promise<Tab>;
  listTabs(): Promise<TabInfo[]>;
  /** Throws `tab_not_found` for an id `listTabs` does not give. */
  activateTab(id: number): Promise<Tab>;
  /** The active tab if there is one already; never opens or attaches one. */
  currentTab(): Tab | null;
  /** Opens a blank tab and makes it active; returns it with its id. */
  newTab(): Promise<{ id: number; tab: Tab }>;
  /** Closes a tab (default: the active one); returns the id of the tab active after it, if any. */
  closeTab(id?: number): Promise<{ closed: number; active: number | null }>;
  /**
   * Things that happened since the last call (dialogs dismissed, tabs opened or closed). A host whose
   * tab events arrive asynchronously (the extension) may first wait for those already under way.
   */
  drainNotices(): string[] | Promise<string[]>;
  /**
   * Lets the running call hold the requests with a body its page sends (approvals); returns the undo.
   * Absent where the network is not intercepted by this engine.
   */
  watchRequests?(watch: (request: HeldRequest) => Promise<boolean>): () => void;
  /**
   * A vault secret is about to be filled: from now on, while the session lasts, no request whose URL
   * carries its value leaves the browser, nor a body carrying it to another origin. Resolves once that
   * holds (the fill waits for it). Absent where the network is not intercepted by this engine.
   */
  secretFilled?(fill: SecretFill): void | Promise<void>;
  /** Absent where downloads are not kept (a remote browser's disk). */
  readonly downloads?: DownloadLedger;
}

/** Where a host's downloads are kept (the gateway's, for a browser on this machine). */
export interface DownloadLedger {
  list(): DownloadInfo[];
  /** Downloads finished since the last drain. */
  drain(): DownloadInfo[];
  /** Resolves once nothing is downloading (or after `timeoutMs`); `graceMs` after the last call, waits for one to begin. */
  settle(timeoutMs: number, graceMs?: number): Promise<void>;
}

export interface EngineOptions {
  snapshotMaxChars: number;
  /** The cap on one tool call; navigation waits a little less so it can answer with its own error. */
  commandTimeoutMs: number;
  /** The browser is not on this machine (provider, CDP URL): private addresses are refused. */
  remote: boolean;
  allowPrivateUrls: boolean;
}
