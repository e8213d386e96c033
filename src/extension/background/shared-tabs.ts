/**
 * The engine's TabHost over the tabs the user shared: only they exist for the agent (`browser_tabs`
 * lists nothing else, `browser_tab_activate` refuses anything else), and chrome.debugger is attached
 * to a tab only when a command needs it, and detached when the share ends.
 */
import type { TabHost } from '../../engine/tab-host.js';
import { CdpSession } from '../../engine/transport.js';
import { Tab } from '../../engine/tab.js';
import { TabgateError, type TabInfo } from '../../protocol/index.js';
import { chrome } from '../chrome-api.js';
import { DebuggerTransport } from './debugger-transport.js';
import { readLocal } from './durable-state.js';
import { adoptTab, agentIdOf, setActiveTab, shareSettled, tabIdOfAgentId } from './share.js';

/** How long a shared tab's pending navigation may hold our first attach before it is stopped. */
const TAKE_OVER_AFTER_MS = 2_000;

interface Attached {
  /** Null while the attach is in flight; concurrent calls share that attempt. */
  transport: DebuggerTransport | null;
  tab: Promise<Tab>;
}

export class SharedTabs implements TabHost {
  private readonly attached = new Map<number, Attached>();
  private readonly counter = { next: 1 };
  private notices: string[] = [];

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
    return this.tabFor(tabId);
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
    return this.tabFor(id);
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
    tab?.dispose();
    await entry.transport?.detach();
  }

  /** Detaches everywhere: the share ended. */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.attached.keys()].map((tabId) => this.release(tabId)));
  }

  private tabFor(tabId: number): Promise<Tab> {
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
      // The tab may be mid-load (a previous worker life died while it navigated): see stalled-navigation.ts.
      await tab.init({ takeOverAfterMs: TAKE_OVER_AFTER_MS });
      return tab;
    })();
    entry.tab.catch(forget);
    this.attached.set(tabId, entry);
    return entry.tab;
  }
}
