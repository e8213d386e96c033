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
import { adoptTab, setActiveTab } from './share.js';

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
      if (!(await adoptTab(tabId, opener ?? tabId))) {
        throw new TabgateError(
          'no_page',
          'The shared tabs were closed; share a tab again from the extension.',
        );
      }
      await setActiveTab(tabId);
    }
    return this.tabFor(tabId);
  }

  async listTabs(): Promise<TabInfo[]> {
    const share = await readLocal('share');
    if (!share) return [];
    const tabs: TabInfo[] = [];
    for (const id of share.tab_ids.slice(0, 100)) {
      const tab = await chrome.tabs.get(id).catch(() => null);
      if (!tab) continue;
      tabs.push({
        id,
        title: (tab.title ?? '').slice(0, 500),
        url: (tab.url ?? tab.pendingUrl ?? '').slice(0, 2000),
        active: id === share.active_tab_id,
      });
    }
    return tabs;
  }

  async activateTab(id: number): Promise<Tab> {
    const share = await readLocal('share');
    if (!share?.tab_ids.includes(id))
      throw new TabgateError('tab_not_found', `Tab ${id} is not shared with this session.`);
    await setActiveTab(id);
    await chrome.tabs.update(id, { active: true }).catch(() => undefined);
    return this.tabFor(id);
  }

  drainNotices(): string[] {
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
      await tab.init();
      return tab;
    })();
    entry.tab.catch(forget);
    this.attached.set(tabId, entry);
    return entry.tab;
  }
}
