/**
 * One tabgate session's browser over a CDP browser connection: its own browser context (cookies and
 * storage never shared), the tabs in it, including popups and `target=_blank` pages it opens (found
 * through target discovery), small stable tab ids, and which tab is active.
 */
import { TabgateError, type SecretFill, type SiteRules, type TabInfo } from '../protocol/index.js';
import type { HeldRequest } from './action-gate.js';
import type { TargetInfo } from './cdp-types.js';
import { DEFAULT_DIALOG_SETTINGS, type DialogSettings } from './dialogs.js';
import type { NetworkGuard, Refusal } from './network-guard.js';
import type { RefCounter } from './refs.js';
import { pageInfo } from './navigation.js';
import { refusedPageInfo } from './refused-page.js';
import type { DownloadLedger, TabHost } from './tab-host.js';
import { Tab } from './tab.js';
import type { CdpSession } from './transport.js';

interface TabEntry {
  id: number;
  targetId: string;
  info: TargetInfo;
  tab: Promise<Tab>;
  /** The tab as soon as it exists (before its init ends), for what must not wait on it. */
  ready?: Tab;
}

export class ContextSession implements TabHost {
  private readonly entries = new Map<string, TabEntry>();
  private readonly counter: RefCounter = { next: 1 };
  private notices: string[] = [];
  /**
   * The last refused navigation of each page target: a popup whose first navigation was refused has
   * nothing committed, and its target still names the refused address; it is kept here too for a
   * popup refused before it is tracked.
   */
  private readonly documentRefusals = new Map<string, Refusal>();
  private readonly refusedOrigins = new Set<string>();
  private nextTabId = 1;
  private activeTargetId: string | undefined;
  private closed = false;
  /** Set by the backend when it keeps this session's downloads. */
  downloads?: DownloadLedger;
  /** The vault secrets filled in this session, by name: no request may carry them off (network-guard.ts). */
  private readonly filled = new Map<string, SecretFill>();
  /** The running call's hold on requests with a body (action-gate.ts), while it has one. */
  private requestWatch: ((request: HeldRequest) => Promise<boolean>) | undefined;

  /** `contextId` undefined: the browser's default context (a provider's pre-made browser). */
  constructor(
    private readonly root: CdpSession,
    readonly contextId: string | undefined,
    private readonly ownsContext: boolean,
    private readonly guard?: NetworkGuard,
    /** The site rules in force for this session (they change when the owner grants a site). */
    private readonly sites?: () => SiteRules,
    private readonly dialogs: DialogSettings = DEFAULT_DIALOG_SETTINGS,
  ) {}

  secretFilled(fill: SecretFill): void {
    this.filled.set(fill.name, fill);
  }

  /** The secrets filled in this session, for the network guard. */
  filledSecrets(): Iterable<SecretFill> {
    return this.filled.values();
  }

  owns(info: TargetInfo): boolean {
    return info.type === 'page' && this.ownsContextOf(info);
  }

  /** Whether a target of any type (a page, an iframe, a worker) lives in this session's context. */
  ownsContextOf(info: TargetInfo): boolean {
    return !this.closed && (this.contextId === undefined || info.browserContextId === this.contextId);
  }

  watchRequests(watch: (request: HeldRequest) => Promise<boolean>): () => void {
    this.requestWatch = watch;
    return () => {
      if (this.requestWatch === watch) this.requestWatch = undefined;
    };
  }

  /** Held for the running call's gate, if one watches; null lets the request go. */
  holdRequest(request: HeldRequest): Promise<boolean> | null {
    return this.closed ? null : (this.requestWatch?.(request) ?? null);
  }

  siteRules(): SiteRules | undefined {
    return this.sites?.();
  }

  /** Whether a frame is one of this session's: a tab's main frame, or an iframe its tab has seen. */
  knowsFrame(frameId: string): boolean {
    if (this.closed) return false;
    if (this.entries.has(frameId)) return true;
    for (const entry of this.entries.values()) if (entry.ready?.hasFrame(frameId)) return true;
    return false;
  }

  /** Called by the browser engine for every page target created in this context. */
  onTargetCreated(info: TargetInfo): void {
    if (this.closed || this.entries.has(info.targetId)) return;
    const entry = this.track(info);
    if (this.activeTargetId === undefined) this.activeTargetId = info.targetId;
    else
      this.notice(
        `A new tab ${entry.id} opened${info.openerId ? ' (by the page)' : ''}; browser_tab_activate switches to it.`,
      );
  }

  /**
   * A request the network guard refused, if it came from one of this session's tabs (a tab's main frame
   * id is its target id; requests of iframes and service workers are refused all the same, unreported).
   */
  onRefusal(refusal: Refusal): void {
    if (!refusal.frameId) return;
    const isDocument = refusal.resourceType === 'Document';
    if (isDocument) {
      this.documentRefusals.delete(refusal.frameId);
      this.documentRefusals.set(refusal.frameId, refusal);
      if (this.documentRefusals.size > 100)
        this.documentRefusals.delete(this.documentRefusals.keys().next().value ?? '');
    }
    const entry = this.entries.get(refusal.frameId);
    if (!entry) return;
    entry.ready?.onRefused(refusal);
    if (isDocument) {
      this.notice(refusedNavigationNotice(entry.id, refusal));
      return;
    }
    // One notice per tab and origin between two calls, however many requests the page makes.
    const origin = new URL(refusal.url).origin;
    const key = `${entry.id} ${origin}`;
    if (this.refusedOrigins.has(key)) return;
    this.refusedOrigins.add(key);
    this.notice(`Requests of tab ${entry.id} to ${origin} were refused (${refusal.reason}).`);
  }

  onTargetInfoChanged(info: TargetInfo): void {
    const entry = this.entries.get(info.targetId);
    if (entry) entry.info = info;
  }

  onTargetDestroyed(targetId: string): void {
    const entry = this.entries.get(targetId);
    if (!entry) return;
    this.entries.delete(targetId);
    void entry.tab.then((tab) => tab.dispose()).catch(() => undefined);
    if (this.activeTargetId === targetId) {
      this.activeTargetId = [...this.entries.keys()].at(-1);
      const next = this.activeTargetId ? this.entries.get(this.activeTargetId)?.id : undefined;
      this.notice(`Tab ${entry.id} was closed${next ? `; tab ${next} is now active` : ''}.`);
    }
  }

  private track(info: TargetInfo): TabEntry {
    const entry: TabEntry = {
      id: this.nextTabId++,
      targetId: info.targetId,
      info,
      tab: this.attach(info.targetId, (tab) => (entry.ready = tab)),
    };
    const early = this.documentRefusals.get(info.targetId);
    if (early) this.notice(refusedNavigationNotice(entry.id, early));
    entry.tab.catch(() => undefined);
    this.entries.set(info.targetId, entry);
    return entry;
  }

  /** `created` gets the tab as soon as it exists: from then on refusals reach it, before its init ends. */
  private async attach(targetId: string, created: (tab: Tab) => void): Promise<Tab> {
    const { sessionId } = await this.root.send<{ sessionId: string }>('Target.attachToTarget', {
      targetId,
      flatten: true,
    });
    const tab = new Tab(
      this.root.child(sessionId),
      this.counter,
      (text) => this.notice(text),
      this.guard,
      this.dialogs,
    );
    created(tab);
    // A refusal that came before is handed over.
    const early = this.documentRefusals.get(targetId);
    if (early) tab.onRefused(early);
    await tab.init();
    return tab;
  }

  private notice(text: string): void {
    this.notices.push(text);
    if (this.notices.length > 20) this.notices.shift();
  }

  drainNotices(): string[] {
    const notices = this.notices;
    this.notices = [];
    this.refusedOrigins.clear();
    return notices;
  }

  async activeTab(): Promise<Tab> {
    let entry = this.activeTargetId ? this.entries.get(this.activeTargetId) : undefined;
    if (!entry) {
      const { targetId } = await this.root.send<{ targetId: string }>('Target.createTarget', {
        url: 'about:blank',
        ...(this.contextId ? { browserContextId: this.contextId } : {}),
      });
      entry =
        this.entries.get(targetId) ??
        this.track({ targetId, type: 'page', title: '', url: 'about:blank', attached: false });
      this.activeTargetId = targetId;
    }
    const tab = await entry.tab;
    if (tab.crashed) {
      this.onTargetDestroyed(entry.targetId);
      await this.root.send('Target.closeTarget', { targetId: entry.targetId }).catch(() => undefined);
      throw new TabgateError(
        'browser_crashed',
        'The tab crashed; it was closed, and the next call opens a fresh one.',
      );
    }
    return tab;
  }

  /** A frame of this session: a tab's main frame id is its target id. */
  ownsFrame(frameId: string): boolean {
    return this.entries.has(frameId);
  }

  currentTab(): Tab | null {
    return (this.activeTargetId ? this.entries.get(this.activeTargetId)?.ready : undefined) ?? null;
  }

  async listTabs(): Promise<TabInfo[]> {
    return Promise.all([...this.entries.values()].map((entry) => this.listed(entry)));
  }

  /**
   * What a tab shows now. Chromium's target info trails a navigation (its title is the bare address for
   * a while), so an attached tab is asked for its current history entry, as a navigation's answer is.
   */
  private async listed(entry: TabEntry): Promise<TabInfo> {
    // A tab is never listed at an address it was kept from: a popup refused at its first
    // navigation is on its initial empty page; the extension's refusals show an error page.
    const neverOpened = this.documentRefusals.get(entry.targetId)?.url === entry.info.url;
    const refusedPage = entry.ready?.refusedPage;
    const shown = refusedPage
      ? refusedPageInfo(refusedPage)
      : neverOpened
        ? { url: 'about:blank', title: '' }
        : entry.ready
          ? await pageInfo(entry.ready).catch(() => entry.info)
          : entry.info;
    return {
      id: entry.id,
      title: shown.title.slice(0, 500),
      url: shown.url.slice(0, 2000),
      active: entry.targetId === this.activeTargetId,
    };
  }

  async activateTab(id: number): Promise<Tab> {
    const entry = [...this.entries.values()].find((candidate) => candidate.id === id);
    if (!entry) throw new TabgateError('tab_not_found', `There is no tab ${id} in this session.`);
    this.activeTargetId = entry.targetId;
    await this.root.send('Target.activateTarget', { targetId: entry.targetId }).catch(() => undefined);
    return entry.tab;
  }

  async newTab(): Promise<{ id: number; tab: Tab }> {
    const { targetId } = await this.root.send<{ targetId: string }>('Target.createTarget', {
      url: 'about:blank',
      ...(this.contextId ? { browserContextId: this.contextId } : {}),
    });
    // Target discovery may have tracked it already (and noted it as opened): it is ours, not news.
    const known = this.entries.get(targetId);
    if (known) this.notices = this.notices.filter((text) => !text.startsWith(`A new tab ${known.id} opened`));
    const entry =
      known ?? this.track({ targetId, type: 'page', title: '', url: 'about:blank', attached: false });
    this.activeTargetId = targetId;
    return { id: entry.id, tab: await entry.tab };
  }

  async closeTab(id?: number): Promise<{ closed: number; active: number | null }> {
    const entry =
      id === undefined
        ? this.activeTargetId
          ? this.entries.get(this.activeTargetId)
          : undefined
        : [...this.entries.values()].find((candidate) => candidate.id === id);
    if (!entry) {
      throw new TabgateError(
        'tab_not_found',
        id === undefined ? 'No tab is open.' : `There is no tab ${id} in this session.`,
      );
    }
    await this.root.send('Target.closeTarget', { targetId: entry.targetId });
    // Forgotten now rather than when the browser says so, so the answer already names the next tab.
    const wasActive = this.activeTargetId === entry.targetId;
    this.entries.delete(entry.targetId);
    void entry.tab.then((tab) => tab.dispose()).catch(() => undefined);
    if (wasActive) this.activeTargetId = [...this.entries.keys()].at(-1);
    const active = this.activeTargetId ? (this.entries.get(this.activeTargetId)?.id ?? null) : null;
    return { closed: entry.id, active };
  }

  /** Disposes the context (or closes our tabs in a shared one). Never throws. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const entry of this.entries.values())
      void entry.tab.then((tab) => tab.dispose()).catch(() => undefined);
    if (this.ownsContext && this.contextId) {
      await this.root
        .send('Target.disposeBrowserContext', { browserContextId: this.contextId })
        .catch(() => undefined);
    } else {
      await Promise.all(
        [...this.entries.keys()].map((targetId) =>
          this.root.send('Target.closeTarget', { targetId }).catch(() => undefined),
        ),
      );
    }
    this.entries.clear();
  }
}

function refusedNavigationNotice(tabId: number, refusal: Refusal): string {
  return `Tab ${tabId} was kept from opening ${refusal.url.slice(0, 200)} (${refusal.reason}); it stayed on the page it was on.`;
}
