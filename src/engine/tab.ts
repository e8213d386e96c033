/**
 * One tab as the engine sees it: the page's CDP session, the sessions of its out-of-process iframes
 * (auto-attached, flattened), our isolated world per frame, the main frame's loading state, console
 * messages, and dialogs (dialogs.ts: kept open for the agent to answer, or answered by policy). Works on
 * any transport: a browser connection or `chrome.debugger` attached to one tab.
 */
import type { WalkedSnapshot } from './snapshot-walk.js';
import type {
  AttachedToTarget,
  FrameInfo,
  FrameRequestedNavigation,
  FrameTree,
  LifecycleEvent,
  RequestWillBeSent,
  ResponseReceived,
} from './cdp-types.js';
import { ConsoleLog } from './console-log.js';
import { DEFAULT_DIALOG_SETTINGS, TabDialogs, type DialogSettings } from './dialogs.js';
import { FrameWorlds } from './frame-worlds.js';
import { PageActivity } from './page-activity.js';
import type { NetworkGuard, Refusal } from './network-guard.js';
import { RedirectLog } from './redirect-log.js';
import { refusalOfErrorPage, type ErrorPageJudge } from './refused-page.js';
import { RefTable, type RefCounter } from './refs.js';
import { pastStalledNavigation } from './stalled-navigation.js';
import type { CdpSession } from './transport.js';

export interface FrameEntry {
  worlds: FrameWorlds;
  parentId: string | undefined;
  children: string[];
}

/** How many of the main frame's latest documents keep their load events and HTTP status. */
const KEPT_DOCUMENTS = 20;

export class Tab {
  readonly pageWorlds: FrameWorlds;
  readonly console = new ConsoleLog();
  /** The page session's requests under way (actions.ts waits on them after a submission taken over). */
  readonly activity = new PageActivity();
  readonly refs: RefTable;
  readonly dialogs: TabDialogs;
  mainFrameId = '';
  crashed = false;
  /** Main-frame navigation state, read by the waits of navigation and actions. */
  loading = false;
  /** Loads the main frame began, committed or not (a download, a refused navigation end without one). */
  loadsStarted = 0;
  navigations = 0;
  sameDocumentNavigations = 0;
  mainLoaderId = '';
  /** The main frame's committed URL, for naming the page a redirect left. */
  mainUrl = '';
  /** Cross-document navigations the main frame's page asked for (scripts, meta refresh, forms). */
  requestedNavigations = 0;
  readonly redirects = new RedirectLog();
  /** Refused main-frame navigations so far, and the last one (navigation.ts answers with it). */
  refusedNavigations = 0;
  lastRefusal: Refusal | null = null;
  /** Set while the main frame shows the error page of a navigation the extension's rules refused. */
  refusedPage: Refusal | null = null;
  /** Inside the extension: the site rules' verdict on an error page's address (their network rules refused it). */
  judgeErrorPage?: ErrorPageJudge;
  /** The last snapshot walk, which the pages after its first answer are read from while it stands. */
  lastWalk: WalkedSnapshot | undefined;
  private readonly lifecycle = new Map<string, Set<string>>();
  private readonly statuses = new Map<string, number>();
  private readonly children = new Map<string, FrameWorlds>();
  /** Frames of this page's process (the site guard traces an iframe's navigation to its session). */
  private readonly frameIds = new Set<string>();
  private readonly waiters = new Set<() => void>();
  private readonly unsubscribe: (() => void)[] = [];
  /**
   * Told of each target auto-attached to the tab (an out-of-process iframe, a worker) before it runs:
   * the extension intercepts an iframe's requests from its first one (tab-network.ts).
   */
  onChildAttached?: (child: CdpSession, type: string) => Promise<void>;

  constructor(
    readonly page: CdpSession,
    counter: RefCounter,
    private readonly notice: (text: string) => void,
    /** The browser's network guard, when the engine holds the browser (not inside the extension). */
    readonly guard?: NetworkGuard,
    dialogSettings: DialogSettings = DEFAULT_DIALOG_SETTINGS,
  ) {
    this.dialogs = new TabDialogs(dialogSettings, notice, () => this.poke());
    this.pageWorlds = new FrameWorlds(page);
    this.refs = new RefTable(counter);
  }

  /**
   * `takeOverAfterMs`: the tab may be mid-navigation when we attach (the extension taking over a shared
   * tab); a navigation that has not committed after that long is stopped rather than waited for
   * (stalled-navigation.ts). Without it, a tab we opened ourselves waits for its own first navigation.
   */
  async init(options: { takeOverAfterMs?: number } = {}): Promise<void> {
    const page = this.page;
    const watching = this.watch(page);
    this.unsubscribe.push(
      ...this.activity.listen(page, () => this.poke()),
      page.on<LifecycleEvent>('Page.lifecycleEvent', (event) => {
        if (event.frameId !== this.mainFrameId) return;
        if (event.name === 'init') {
          this.lifecycle.set(event.loaderId, new Set());
          // Only the last documents' events are ever asked for; a long-lived tab must not keep them all.
          if (this.lifecycle.size > KEPT_DOCUMENTS)
            this.lifecycle.delete(this.lifecycle.keys().next().value ?? '');
        }
        this.lifecycle.get(event.loaderId)?.add(event.name);
        this.poke();
      }),
      page.on<{ frame: FrameInfo }>('Page.frameNavigated', ({ frame }) => {
        if (frame.parentId) return;
        this.mainFrameId = frame.id;
        this.mainLoaderId = frame.loaderId;
        this.mainUrl = frame.url;
        this.refusedPage = refusalOfErrorPage(frame, this.judgeErrorPage);
        this.navigations++;
        this.poke();
      }),
      page.on<FrameRequestedNavigation>('Page.frameRequestedNavigation', (event) => {
        if (event.frameId !== this.mainFrameId || event.disposition !== 'currentTab') return;
        this.requestedNavigations++;
        this.redirects.client(this.mainUrl, event.reason);
        this.poke();
      }),
      page.on<RequestWillBeSent>('Network.requestWillBeSent', (event) => {
        if (event.type !== 'Document' || event.frameId !== this.mainFrameId || !event.redirectResponse)
          return;
        this.redirects.http(event.redirectResponse.url, event.redirectResponse.status);
      }),
      page.on<{ frameId: string }>('Page.frameAttached', ({ frameId }) => {
        if (this.frameIds.size < 1_000) this.frameIds.add(frameId);
      }),
      page.on<{ frameId: string }>('Page.frameDetached', ({ frameId }) => {
        this.frameIds.delete(frameId);
      }),
      page.on<{ frameId: string }>('Page.navigatedWithinDocument', ({ frameId }) => {
        if (frameId !== this.mainFrameId) return;
        this.sameDocumentNavigations++;
        this.poke();
      }),
      page.on<{ frameId: string }>('Page.frameStartedLoading', ({ frameId }) => {
        if (frameId !== this.mainFrameId) return this.poke();
        this.loading = true;
        this.loadsStarted++;
        this.poke();
      }),
      page.on<{ frameId: string }>('Page.frameStoppedLoading', ({ frameId }) => {
        if (frameId === this.mainFrameId) this.loading = false;
        this.poke();
      }),
      page.on<ResponseReceived>('Network.responseReceived', (event) => {
        if (event.type !== 'Document' || event.frameId !== this.mainFrameId) return;
        this.statuses.set(event.loaderId, event.response.status);
        if (this.statuses.size > KEPT_DOCUMENTS)
          this.statuses.delete(this.statuses.keys().next().value ?? '');
      }),
      page.on('Inspector.targetCrashed', () => {
        this.crashed = true;
        this.poke();
      }),
    );
    const setup = Promise.all([
      page.send<{ frameTree: FrameTree }>('Page.getFrameTree'),
      watching,
      page.send('Page.setLifecycleEventsEnabled', { enabled: true }),
      page.send('Network.enable', { maxTotalBufferSize: 0, maxResourceBufferSize: 0 }),
      page.send('Emulation.setFocusEmulationEnabled', { enabled: true }),
    ]);
    const grace = options.takeOverAfterMs;
    const [tree] = await (grace === undefined
      ? setup
      : pastStalledNavigation(page, setup, grace, this.notice));
    this.mainFrameId = tree.frameTree.frame.id;
    this.mainLoaderId = tree.frameTree.frame.loaderId;
    this.mainUrl = tree.frameTree.frame.url;
    this.refusedPage = refusalOfErrorPage(tree.frameTree.frame, this.judgeErrorPage);
  }

  /** Page, Runtime and auto-attach on one session: the page itself or an out-of-process iframe. */
  private async watch(session: CdpSession): Promise<void> {
    this.unsubscribe.push(
      ...this.console.listen(session),
      ...this.dialogs.listen(session),
      session.on<AttachedToTarget>('Target.attachedToTarget', (event) => void this.adopt(event)),
      session.on<{ sessionId: string }>('Target.detachedFromTarget', ({ sessionId }) => {
        this.children.get(sessionId)?.dispose();
        this.children.delete(sessionId);
      }),
    );
    await Promise.all([
      session.send('Page.enable'),
      session.send('Runtime.enable'),
      session.send('Target.setAutoAttach', { autoAttach: true, waitForDebuggerOnStart: true, flatten: true }),
    ]);
  }

  private async adopt({ sessionId, targetInfo, waitingForDebugger }: AttachedToTarget): Promise<void> {
    const child = this.page.child(sessionId);
    if (targetInfo.type === 'iframe') {
      this.children.set(sessionId, new FrameWorlds(child));
      await this.watch(child).catch(() => undefined);
    }
    await this.onChildAttached?.(child, targetInfo.type).catch(() => undefined);
    if (waitingForDebugger) await child.send('Runtime.runIfWaitingForDebugger').catch(() => undefined);
    // Workers and the like are not ours to drive.
    if (targetInfo.type !== 'iframe')
      await child.send('Target.detachFromTarget', { sessionId }).catch(() => undefined);
  }

  /** Every frame of the tab, in-process and out-of-process, with the worlds that reach it. */
  async frames(): Promise<Map<string, FrameEntry>> {
    const index = new Map<string, FrameEntry>();
    const add = (tree: FrameTree, worlds: FrameWorlds) => {
      index.set(tree.frame.id, { worlds, parentId: tree.frame.parentId, children: [] });
      for (const child of tree.childFrames ?? []) add(child, worlds);
    };
    add((await this.page.send<{ frameTree: FrameTree }>('Page.getFrameTree')).frameTree, this.pageWorlds);
    const trees = await Promise.all(
      [...this.children.values()].map(async (worlds) => {
        const tree = await worlds.session
          .send<{ frameTree: FrameTree }>('Page.getFrameTree')
          .catch(() => null);
        return { worlds, tree };
      }),
    );
    for (const { worlds, tree } of trees) if (tree) add(tree.frameTree, worlds);
    for (const [id, entry] of index) if (entry.parentId) index.get(entry.parentId)?.children.push(id);
    return index;
  }

  hasFrame(frameId: string): boolean {
    return this.frameIds.has(frameId);
  }

  /** The network guard refused a request of this tab's main frame. */
  onRefused(refusal: Refusal): void {
    if (refusal.resourceType !== 'Document') return;
    this.lastRefusal = refusal;
    this.refusedNavigations++;
    this.poke();
  }

  documentStatus(loaderId: string): number | null {
    return this.statuses.get(loaderId) ?? null;
  }

  reached(loaderId: string, event: 'load' | 'DOMContentLoaded'): boolean {
    return this.lifecycle.get(loaderId)?.has(event) ?? false;
  }

  /**
   * The document a navigation opened has loaded; or it committed and the frame then stopped loading
   * without a load event, which is what a script sending the page elsewhere while it parses leaves when
   * that navigation is refused (a navigation it starts instead keeps the frame loading until it ends).
   */
  settled(loaderId: string): boolean {
    return this.reached(loaderId, 'load') || (this.lifecycle.has(loaderId) && !this.loading);
  }

  /** Resolves true once `check` holds (re-checked on every main-frame event), false after `timeoutMs`. */
  waitUntil(check: () => boolean, timeoutMs: number): Promise<boolean> {
    if (check() || this.crashed) return Promise.resolve(check());
    return new Promise((resolve) => {
      const done = (value: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        resolve(value);
      };
      const waiter = () => {
        if (check()) done(true);
        else if (this.crashed) done(false);
      };
      const timer = setTimeout(() => done(false), Math.max(0, timeoutMs));
      this.waiters.add(waiter);
    });
  }

  /** Re-checks every `waitUntil` now: what it waits for changed outside the tab's own events. */
  recheck(): void {
    this.poke();
  }

  private poke(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  dispose(): void {
    for (const off of this.unsubscribe) off();
    this.dialogs.dispose();
    this.pageWorlds.dispose();
    for (const worlds of this.children.values()) worlds.dispose();
    for (const waiter of [...this.waiters]) waiter();
  }
}
