/**
 * The engine's TabHost over the tabs the user shared: only they exist for the agent (`browser_tabs`
 * lists nothing else, `browser_tab_activate` refuses anything else), and chrome.debugger is attached
 * to a tab only when a command needs it, and detached when the share ends.
 *
 * Each attached tab's network goes through the extension (tab-network.ts): the requests with a body a
 * running call's approvals hold, and, once a vault secret was filled in the share, every request, so
 * none carries the value off (`secret_in_url`, `secret_in_body`: the rules of the engine's network
 * guard, from the same matching code).
 */
import { mayNeedApproval, type HeldRequest } from '../../engine/action-gate.js';
import { hostOf } from '../../engine/network-guard.js';
import { secretInRequest } from '../../engine/secret-forms.js';
import type { TabHost } from '../../engine/tab-host.js';
import { CdpSession } from '../../engine/transport.js';
import type { ErrorPageJudge } from '../../engine/refused-page.js';
import { Tab } from '../../engine/tab.js';
import { TabgateError, type SecretFill, type TabInfo } from '../../protocol/index.js';
import { chrome } from '../chrome-api.js';
import { DebuggerTransport } from './debugger-transport.js';
import { readLocal, readSession, writeSession } from './durable-state.js';
import { installSecretRules, removeSecretRules } from './secret-rules.js';
import { adoptTab, agentIdOf, forgetTab, setActiveTab, shareSettled, tabIdOfAgentId } from './share.js';
import type { TabDownloads } from './tab-downloads.js';
import { TabNetwork, type Decision, type Interception, type PausedRequest } from './tab-network.js';

/** How long a shared tab's pending navigation may hold our first attach before it is stopped. */
const TAKE_OVER_AFTER_MS = 2_000;

interface Attached {
  /** Null while the attach is in flight; concurrent calls share that attempt. */
  transport: DebuggerTransport | null;
  tab: Promise<Tab>;
}

const GO: Decision = { go: true };

export class SharedTabs implements TabHost {
  private readonly attached = new Map<number, Attached>();
  private readonly counter = { next: 1 };
  private notices: string[] = [];
  /** The tab the last call acted on, for reading its dialog state without attaching. */
  private current: Tab | null = null;
  /** The running call's hold on requests with a body, and the tab it holds them on (approvals). */
  private watch: ((request: HeldRequest) => Promise<boolean>) | undefined;
  private watched: Tab | null = null;
  /** Each attached tab's network layer. */
  private readonly networks = new Map<Tab, TabNetwork>();
  /** The vault secrets filled in this share (mirrored in session storage); null until read. */
  private filled: { session_id: string; fills: SecretFill[] } | null = null;
  /** Origins a secret's refusal was told for, so a page that keeps trying makes one notice. */
  private readonly toldRefusals = new Set<string>();
  /**
   * The person pressed Stop agent: no tab is attached again until Resume or a new share, whatever is
   * still running (a cancelled call's last steps, a command that crossed the Stop on the wire).
   */
  private stopped = false;
  /** The shared tabs' downloads: taken off their network layer, kept on the gateway (tab-downloads.ts). */
  downloads: TabDownloads | undefined;
  /** The session's site rules on an address their network rules kept a shared tab from (site-guard.ts). */
  judgeErrorPage: ErrorPageJudge | undefined;

  /** Stop agent: detaches from every tab and keeps the debugger off them (the share goes on). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.detachAll();
  }

  /** Resume, or a new share: tabs may be attached again when a command needs one. */
  resume(): void {
    this.stopped = false;
  }

  /**
   * Holds, while the running call's input acts, every request with a body the tab sends, at the
   * network layer (`Fetch.requestPaused` on the tab's debugger sessions) until the person decides.
   * Interception starts on the tab the call acts on, before its input is dispatched (`activeTab`).
   */
  watchRequests(watch: (request: HeldRequest) => Promise<boolean>): () => void {
    this.watch = watch;
    if (this.current) void this.intercept(this.current).catch(() => undefined);
    return () => {
      if (this.watch !== watch) return;
      this.watch = undefined;
      const watched = this.watched;
      this.watched = null;
      if (watched)
        void this.networks
          .get(watched)
          ?.set(this.interceptionOf(watched))
          .catch(() => undefined);
    };
  }

  /**
   * A vault secret is about to be filled: from now until the share ends, no request of a shared tab
   * (its frames and workers included) carries its value off. Resolves once every attached tab
   * intercepts every request; throws, and so nothing is typed, when one cannot.
   */
  async secretFilled(fill: SecretFill): Promise<void> {
    const share = await readLocal('share');
    if (!share) throw new TabgateError('no_page', 'No tab is shared with this session any more.');
    const known = await this.filledSecrets(share.session_id);
    const fills = [...known.filter((kept) => kept.name !== fill.name), fill];
    this.filled = { session_id: share.session_id, fills };
    await writeSession('filled_secrets', this.filled);
    await installSecretRules(fills);
    await Promise.all([...this.networks].map(([tab, network]) => network.set(this.interceptionOf(tab))));
  }

  /** The secrets filled in the share `sessionId`, read back after a worker restart. */
  private async filledSecrets(sessionId: string): Promise<SecretFill[]> {
    if (this.filled === null) this.filled = await readSession('filled_secrets');
    // Another share's are no business of this one (it ended without telling us, in a past worker life).
    if (this.filled !== null && this.filled.session_id !== sessionId) this.filled = null;
    return this.filled?.fills ?? [];
  }

  private interceptionOf(tab: Tab): Interception {
    if ((this.filled?.fills.length ?? 0) > 0) return 'every';
    return this.watch && this.watched === tab ? 'with-body' : 'none';
  }

  private async intercept(tab: Tab): Promise<void> {
    if (!this.watch || this.watched === tab) return;
    const before = this.watched;
    this.watched = tab;
    if (before)
      void this.networks
        .get(before)
        ?.set(this.interceptionOf(before))
        .catch(() => undefined);
    await this.networks.get(tab)?.set(this.interceptionOf(tab));
  }

  /** A request of a shared tab: failed when it carries a filled secret, else held for an approval. */
  private async decide(tab: Tab, request: PausedRequest): Promise<Decision> {
    const fills = this.filled?.fills ?? [];
    const secret = hostOf(request.url) === null ? null : secretInRequest(request, fills);
    if (secret) {
      this.tellSecretRefusal(request.url, secret);
      // A refused navigation of the page leaves it where it was; anything else fails as the page's.
      const topLevel = request.resourceType === 'Document' && request.frameId === tab.mainFrameId;
      return { go: false, errorReason: topLevel ? 'Aborted' : 'BlockedByClient' };
    }
    const watch = this.watch;
    if (!watch || this.watched !== tab || !mayNeedApproval(request)) return GO;
    return (await watch(request).catch(() => false)) ? GO : { go: false, errorReason: 'BlockedByClient' };
  }

  /** Told by origin and name, never the URL (it holds the value). */
  private tellSecretRefusal(url: string, secret: { name: string; where: 'url' | 'body' }): void {
    let origin = '(unreadable URL)';
    try {
      origin = new URL(url).origin;
    } catch {
      // Stays unnamed.
    }
    const key = `${secret.name} ${secret.where} ${origin}`;
    if (this.toldRefusals.has(key)) return;
    if (this.toldRefusals.size > 100) this.toldRefusals.clear();
    this.toldRefusals.add(key);
    this.notice(
      `A request to ${origin} was refused (${secret.where === 'url' ? 'secret_in_url' : 'secret_in_body'}): its ${secret.where === 'url' ? 'URL' : 'body'} carried the value of the vault secret ${secret.name}.`,
    );
  }

  async activeTab(): Promise<Tab> {
    const share = await readLocal('share');
    if (!share) throw new TabgateError('no_page', 'No tab is shared with this session any more.');
    let tabId = share.active_tab_id;
    if (!share.tab_ids.includes(tabId)) {
      // Every shared tab was closed: open a fresh one in the share, as other backends do.
      const opener = share.tab_ids.at(-1);
      const created = await chrome.tabs.create({ url: 'about:blank', active: true });
      tabId = created.id ?? -1;
      if ((await adoptTab(tabId, opener ?? tabId)) === null) {
        throw new TabgateError(
          'no_page',
          'The shared tabs were closed; share a tab again from the extension.',
        );
      }
      await setActiveTab(tabId);
    }
    this.current = await this.tabFor(tabId);
    if (this.watch) await this.intercept(this.current);
    return this.current;
  }

  /** The shared tabs, under the small ids the agent knows them by (never chrome's own tab ids). */
  async listTabs(): Promise<TabInfo[]> {
    await shareSettled();
    const share = await readLocal('share');
    if (!share) return [];
    const tabs: TabInfo[] = [];
    for (const tabId of share.tab_ids.slice(0, 100)) {
      const tab = await chrome.tabs.get(tabId).catch(() => null);
      if (!tab) continue;
      tabs.push({
        id: agentIdOf(share, tabId),
        title: (tab.title ?? '').slice(0, 500),
        url: (tab.url ?? tab.pendingUrl ?? '').slice(0, 2000),
        active: tabId === share.active_tab_id,
      });
    }
    return tabs;
  }

  async activateTab(agentId: number): Promise<Tab> {
    await shareSettled();
    const share = await readLocal('share');
    const id = share ? tabIdOfAgentId(share, agentId) : null;
    if (id === null)
      throw new TabgateError('tab_not_found', `Tab ${agentId} is not shared with this session.`);
    await setActiveTab(id);
    await chrome.tabs.update(id, { active: true }).catch(() => undefined);
    this.current = await this.tabFor(id);
    if (this.watch) await this.intercept(this.current);
    return this.current;
  }

  /** A new tab joins the share, opened next to the active one (so it lands in the share's group). */
  async newTab(): Promise<{ id: number; tab: Tab }> {
    const share = await readLocal('share');
    if (!share) throw new TabgateError('no_page', 'No tab is shared with this session any more.');
    const created = await chrome.tabs.create({
      url: 'about:blank',
      active: true,
      openerTabId: share.active_tab_id,
    });
    const tabId = created.id ?? -1;
    const id = await adoptTab(tabId, share.active_tab_id);
    if (id === null) {
      await chrome.tabs.remove(tabId).catch(() => undefined);
      throw new TabgateError('no_page', 'The new tab could not join the share; share a tab again.');
    }
    await setActiveTab(tabId);
    return { id, tab: await this.tabFor(tabId) };
  }

  /**
   * Closes a tab of the share. The tab the user shared themselves is theirs and stays open: only tabs
   * opened during the share (by the agent or the page) may be closed.
   */
  async closeTab(agentId?: number): Promise<{ closed: number; active: number | null }> {
    await shareSettled();
    const share = await readLocal('share');
    const tabId = !share
      ? null
      : agentId === undefined
        ? share.active_tab_id
        : tabIdOfAgentId(share, agentId);
    if (!share || tabId === null || !share.tab_ids.includes(tabId))
      throw new TabgateError('tab_not_found', `Tab ${agentId ?? ''} is not shared with this session.`);
    const closed = agentIdOf(share, tabId);
    if (closed === 1) {
      throw new TabgateError(
        'unsupported_on_backend',
        'The tab the user shared is theirs and stays open; only tabs opened during the share can be closed.',
      );
    }
    await this.release(tabId);
    await chrome.tabs.remove(tabId);
    const left = await forgetTab(tabId);
    const active =
      left && left.tab_ids.includes(left.active_tab_id) ? agentIdOf(left, left.active_tab_id) : null;
    return { closed, active };
  }

  /** The active tab if it is attached already (never attaches or opens one). */
  currentTab(): Tab | null {
    return this.current;
  }

  /** Waits for tab adoptions under way, so a tab the action opened is reported with it. */
  async drainNotices(): Promise<string[]> {
    await shareSettled();
    const notices = this.notices;
    this.notices = [];
    return notices;
  }

  notice(text: string): void {
    this.notices.push(text);
    if (this.notices.length > 20) this.notices.shift();
  }

  /** Detaches the debugger from one tab (closed, or left the share). */
  async release(tabId: number): Promise<void> {
    const entry = this.attached.get(tabId);
    this.attached.delete(tabId);
    if (!entry) return;
    const tab = await entry.tab.catch(() => null);
    if (tab && tab === this.current) this.current = null;
    if (tab && this.watched === tab) this.watched = null;
    if (tab) this.networks.get(tab)?.dispose();
    if (tab) this.networks.delete(tab);
    tab?.dispose();
    await entry.transport?.detach();
  }

  /** Detaches everywhere: the share ended, and the secrets filled in it are forgotten. */
  async releaseAll(): Promise<void> {
    await this.detachAll();
    this.filled = null;
    this.toldRefusals.clear();
    await Promise.all([writeSession('filled_secrets', null), removeSecretRules()]);
  }

  private async detachAll(): Promise<void> {
    await Promise.all([...this.attached.keys()].map((tabId) => this.release(tabId)));
  }

  private tabFor(tabId: number): Promise<Tab> {
    if (this.stopped)
      return Promise.reject(
        new TabgateError(
          'session_stopped_by_owner',
          'The person stopped the agent; nothing runs until they resume.',
        ),
      );
    const existing = this.attached.get(tabId);
    if (existing && existing.transport?.closed !== true) return existing.tab;
    const entry: Attached = { transport: null, tab: Promise.resolve(null as unknown as Tab) };
    const forget = () => {
      if (this.attached.get(tabId) === entry) this.attached.delete(tabId);
    };
    entry.tab = (async () => {
      const transport = await DebuggerTransport.attach(tabId);
      entry.transport = transport;
      transport.onClose(forget);
      const tab = new Tab(new CdpSession(transport, undefined), this.counter, (text) => this.notice(text));
      tab.judgeErrorPage = (url, frameId) => this.judgeErrorPage?.(url, frameId) ?? null;
      // From the tab's first request on, and its frames' and workers' before they run.
      const share = await readLocal('share');
      if (share) await this.filledSecrets(share.session_id);
      const network = new TabNetwork(
        (request) => this.decide(tab, request),
        (response) => this.downloads?.respond(response) ?? Promise.resolve(GO),
      );
      const drop = () => {
        network.dispose();
        if (this.networks.get(tab) === network) this.networks.delete(tab);
      };
      this.networks.set(tab, network);
      transport.onClose(drop);
      // Out-of-process iframes have their own sessions; a dedicated worker's requests are the page's.
      tab.onChildAttached = async (child, type) => {
        if (type === 'iframe') await network.add(child);
      };
      try {
        await network.set(this.interceptionOf(tab));
        await network.add(tab.page);
        // The tab may be mid-load (a previous worker life died while it navigated): see stalled-navigation.ts.
        await tab.init({ takeOverAfterMs: TAKE_OVER_AFTER_MS });
      } catch (error) {
        drop();
        throw error;
      }
      return tab;
    })();
    entry.tab.catch(forget);
    this.attached.set(tabId, entry);
    return entry.tab;
  }
}
