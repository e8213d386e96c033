/**
 * The slice of the extension APIs tabgate uses, typed once. Kept as a module (not a global declaration)
 * so that `chrome` exists only for code under src/extension, never for the gateway's type-check.
 */
export interface ChromeEvent<Listener> {
  addListener(listener: Listener): void;
  removeListener(listener: Listener): void;
}

export interface Tab {
  id?: number;
  windowId: number;
  index: number;
  active: boolean;
  groupId: number;
  openerTabId?: number;
  url?: string;
  pendingUrl?: string;
  title?: string;
  status?: string;
}

export interface Debuggee {
  tabId?: number;
  targetId?: string;
  sessionId?: string;
}

interface StorageArea {
  get(keys: string | string[] | null): Promise<Record<string, unknown>>;
  set(items: Record<string, unknown>): Promise<void>;
  remove(keys: string | string[]): Promise<void>;
}

export interface MessageSender {
  id?: string;
  url?: string;
  /** The sending document's origin (Chrome 80+). */
  origin?: string;
  tab?: Tab;
}

/** chrome.downloads' view of one download (the fields tabgate reads). */
export interface DownloadItem {
  id: number;
  url: string;
  finalUrl?: string;
  referrer: string;
  /** The absolute path on the person's disk (empty until it is determined). */
  filename: string;
  mime: string;
  state: 'in_progress' | 'interrupted' | 'complete';
  error?: string;
  totalBytes: number;
  fileSize: number;
  bytesReceived: number;
  exists: boolean;
  byExtensionId?: string;
}

export interface ChromeApi {
  runtime: {
    id: string;
    getURL(path: string): string;
    lastError?: { message?: string };
    getManifest(): { version: string; name: string };
    onMessage: ChromeEvent<
      (message: unknown, sender: MessageSender, sendResponse: (response: unknown) => void) => boolean | void
    >;
    onStartup: ChromeEvent<() => void>;
    onInstalled: ChromeEvent<() => void>;
    sendMessage(message: unknown): Promise<unknown>;
  };
  storage: { local: StorageArea; session: StorageArea };
  alarms: {
    create(name: string, info: { periodInMinutes?: number; delayInMinutes?: number }): Promise<void>;
    clear(name: string): Promise<boolean>;
    onAlarm: ChromeEvent<(alarm: { name: string }) => void>;
  };
  tabs: {
    get(tabId: number): Promise<Tab>;
    query(query: {
      active?: boolean;
      currentWindow?: boolean;
      lastFocusedWindow?: boolean;
      groupId?: number;
    }): Promise<Tab[]>;
    create(props: { url?: string; active?: boolean; windowId?: number; openerTabId?: number }): Promise<Tab>;
    update(tabId: number, props: { active?: boolean; url?: string }): Promise<Tab>;
    remove(tabId: number): Promise<void>;
    group(options: {
      tabIds: number | number[];
      groupId?: number;
      createProperties?: { windowId?: number };
    }): Promise<number>;
    ungroup(tabIds: number | number[]): Promise<void>;
    onCreated: ChromeEvent<(tab: Tab) => void>;
    onRemoved: ChromeEvent<(tabId: number, info: { windowId: number }) => void>;
    onUpdated: ChromeEvent<
      (tabId: number, change: { status?: string; url?: string; title?: string }, tab: Tab) => void
    >;
  };
  tabGroups: {
    update(groupId: number, props: { title?: string; color?: string; collapsed?: boolean }): Promise<unknown>;
  };
  windows: { update(windowId: number, props: { focused?: boolean }): Promise<unknown> };
  debugger: {
    attach(target: Debuggee, version: string): Promise<void>;
    detach(target: Debuggee): Promise<void>;
    sendCommand(target: Debuggee, method: string, params?: object): Promise<unknown>;
    onEvent: ChromeEvent<(source: Debuggee, method: string, params?: unknown) => void>;
    onDetach: ChromeEvent<(source: Debuggee, reason: string) => void>;
  };
  webNavigation: {
    onCreatedNavigationTarget: ChromeEvent<(details: { sourceTabId: number; tabId: number }) => void>;
  };
  action: {
    setBadgeText(details: { text: string; tabId?: number }): Promise<void>;
    setBadgeBackgroundColor(details: { color: string; tabId?: number }): Promise<void>;
    setTitle(details: { title: string; tabId?: number }): Promise<void>;
    /** Chrome 127+; needs a focused window. */
    openPopup?(options?: { windowId?: number }): Promise<void>;
  };
  downloads: {
    search(query: { id?: number }): Promise<DownloadItem[]>;
    cancel(id: number): Promise<void>;
    onCreated: ChromeEvent<(item: DownloadItem) => void>;
    onChanged: ChromeEvent<(delta: { id: number; state?: { current?: string } }) => void>;
    /**
     * Chrome waits for every listener's `suggest` before it names (and so completes) a download; a
     * listener that returns true calls it later.
     */
    onDeterminingFilename: ChromeEvent<
      (item: DownloadItem, suggest: (suggestion?: { filename: string }) => void) => boolean | void
    >;
  };
  /** Optional: a browser without a notification centre leaves the badge and the popup. */
  notifications?: {
    create(
      id: string,
      options: {
        type: 'basic';
        iconUrl: string;
        title: string;
        message: string;
        requireInteraction?: boolean;
        priority?: number;
      },
    ): Promise<string>;
    clear(id: string): Promise<boolean>;
    onClicked: ChromeEvent<(id: string) => void>;
  };
}

export const chrome = (globalThis as unknown as { chrome: ChromeApi }).chrome;
