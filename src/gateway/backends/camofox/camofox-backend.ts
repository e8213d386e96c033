/**
 * Camofox (an anti-detection Firefox served over REST) as a backend: not CDP, so each tool maps onto
 * one of Camofox's calls, with its snapshot and refs translated into tabgate's format
 * (camofox-snapshot.ts) and its failures into tabgate's codes. Each tabgate session is one Camofox
 * user (`tabgate_<hex>`, its own cookies) with one tab, made on the first navigation; closing deletes
 * the user. What Camofox has no call for is refused with `unsupported_on_backend`, never emulated.
 */
import { randomBytes } from 'node:crypto';
import { TabgateError, type SiteRules, type ToolName } from '../../../protocol/index.js';
import type { Logger } from '../../../log/logger.js';
import type { SessionBrowserInfo, ToolCall, UntypedBackend } from '../backend.js';
import type { SiteRulesSource } from '../site-rules-source.js';
import { checkNavigation, NetworkPolicy, type Resolver } from '../network-policy.js';
import type { BrowserSettings } from '../../config/browser-settings.js';
import { CamofoxClient, type CamofoxReply } from './camofox-client.js';
import { camofoxFailure } from './camofox-errors.js';
import { askApproval, judgeLanded, typedUrlRefusal } from './camofox-guards.js';
import { discoverLiveView, webAddress } from './camofox-live-view.js';
import { camofoxRef, snapshotResult, type CamofoxSnapshot } from './camofox-snapshot.js';

export interface CamofoxOptions {
  /** `CAMOFOX_URL` (or `browser.camofox.url`). */
  url: string;
  /** `CAMOFOX_API_KEY`: sent as a Bearer token. */
  apiKey?: string;
  /**
   * `browser.camofox.vnc_url` / `CAMOFOX_VNC_URL`: where a person can watch, shown as the session's
   * live_url; without it, the noVNC page Camofox reports (camofox-live-view.ts).
   */
  vncUrl?: string;
  /**
   * `browser.camofox.user_id` / `CAMOFOX_USER_ID`: a Camofox user kept outside tabgate (a profile with
   * its own cookies and logins). Every session then browses as that user, in a tab of its own, and
   * closing a session never deletes the user.
   */
  userId?: string;
  /** `browser.camofox.session_key` / `CAMOFOX_SESSION_KEY`: the key Camofox groups a session's tabs under. */
  sessionKey?: string;
  resolve?: Resolver;
  /** The sessions' site rules (docs/safety.md); without them no site is judged. */
  sites?: SiteRulesSource;
}

/** The tools Camofox has a call for; everything else is refused. */
export const CAMOFOX_TOOLS: ReadonlySet<ToolName> = new Set<ToolName>([
  'browser_navigate',
  'browser_snapshot',
  'browser_click',
  'browser_type',
  'browser_press',
  'browser_scroll',
  'browser_back',
]);

/**
 * Actions after which the page may be on another site (a link, a form, a key, history): Camofox has no
 * network hook to stop the page's own navigation, so the page they leave is judged before the answer.
 */
const MAY_MOVE: ReadonlySet<ToolName> = new Set<ToolName>(['browser_click', 'browser_type', 'browser_press']);

/** The reference scrolls 5 × Camofox's step per browser_scroll; tabgate's default is one viewport. */
const DEFAULT_SCROLL_PX = 500;
const NAVIGATE_TIMEOUT_MS = 60_000;

interface CamofoxSession {
  /** The tabgate session it serves: its site rules are looked up by this id. */
  sessionId: string;
  userId: string;
  /** Whether tabgate made the user (and deletes it on close), or the owner named one to keep. */
  ownUser: boolean;
  sessionKey: string;
  tabId: string | null;
  /** The origin of the page the session last read (a snapshot, a navigation): where an input lands. */
  pageOrigin: string | null;
}

export class CamofoxBackend implements UntypedBackend {
  readonly name = 'camofox';
  private readonly client: CamofoxClient;
  private readonly sessions = new Map<string, CamofoxSession>();
  private readonly policy: NetworkPolicy;
  /** Where a person can watch, looked up once, on the first page a session opens. */
  private liveView: Promise<string | undefined> | undefined;
  private liveUrl: string | undefined;

  constructor(
    private readonly o: CamofoxOptions,
    private readonly settings: BrowserSettings,
    private readonly log: Logger,
  ) {
    this.client = new CamofoxClient(o.url, o.apiKey);
    // The owner's address wins over what Camofox reports.
    this.liveUrl = webAddress(o.vncUrl);
    this.policy = new NetworkPolicy({
      remote: true,
      allowPrivateUrls: settings.allowPrivateUrls,
      allowedPrivateHosts: settings.allowedPrivateHosts,
      resolve: o.resolve,
    });
  }

  async call(call: ToolCall): Promise<unknown> {
    if (!CAMOFOX_TOOLS.has(call.tool))
      throw new TabgateError(
        'unsupported_on_backend',
        `${call.tool} is not available on Camofox: its REST API has no call for it.`,
      );
    const session = this.sessionOf(call.sessionId);
    if (call.secret)
      throw new TabgateError(
        'unsupported_on_backend',
        'Camofox cannot show tabgate the frame a field is in, so it never types a vault secret; use another browser for sign-ins.',
      );
    await askApproval(call, session.pageOrigin);
    const result = await this.run(session, call);
    if (MAY_MOVE.has(call.tool) && this.siteRules(session)) {
      // A page that cannot be read now is judged at its next read, before any ref from it exists.
      const page = await this.snapshot(session).catch(() => null);
      if (page) await this.judgePage(session, page);
    }
    return result;
  }

  private async run(session: CamofoxSession, call: ToolCall): Promise<unknown> {
    const args = call.args as Record<string, unknown>;
    switch (call.tool) {
      case 'browser_navigate':
        return this.navigate(session, String(args.url));
      case 'browser_snapshot':
        return snapshotResult(
          await this.judgePage(session, await this.snapshot(session)),
          this.settings.snapshotMaxChars,
          typeof args.offset === 'number' ? args.offset : 0,
        );
      case 'browser_click': {
        // Camofox clicks once with the left button: any other click is refused, never done differently.
        if ((args.button !== undefined && args.button !== 'left') || args.double === true)
          throw new TabgateError('unsupported_on_backend', 'Camofox clicks once, with the left button only.');
        if (Array.isArray(args.modifiers) && args.modifiers.length > 0)
          throw new TabgateError('unsupported_on_backend', 'Camofox clicks without modifier keys.');
        await this.onRef(session, 'click', String(args.ref), {});
        return { clicked: String(args.ref) };
      }
      case 'browser_type': {
        const submit = args.submit === true;
        await this.onRef(session, 'type', String(args.ref), { text: args.text, pressEnter: submit });
        return { typed_into: String(args.ref), submitted: submit };
      }
      case 'browser_press': {
        if (Array.isArray(args.modifiers) && args.modifiers.length > 0)
          throw new TabgateError('unsupported_on_backend', 'Camofox presses single keys, without modifiers.');
        await this.tabCall(session, 'press', { key: args.key });
        return { pressed: String(args.key) };
      }
      case 'browser_scroll': {
        const direction = String(args.direction);
        if (direction !== 'up' && direction !== 'down')
          throw new TabgateError('unsupported_on_backend', 'Camofox scrolls up or down only.');
        const amount = typeof args.amount === 'number' ? args.amount : DEFAULT_SCROLL_PX;
        await this.tabCall(session, 'scroll', { direction, amount });
        // Camofox does not report the scroll position (the result schema allows null for this).
        return { scrolled: direction, scroll_x: null, scroll_y: null };
      }
      default: {
        // No page yet is no previous page either: the same answer as every other backend's.
        if (!session.tabId)
          throw new TabgateError('navigation_failed', 'There is no previous page to go back to.');
        await this.tabCall(session, 'back', {});
        const page = await this.judgePage(session, await this.snapshot(session));
        return { url: page.url ?? '', title: page.title ?? '' };
      }
    }
  }

  describeSession(sessionId: string): SessionBrowserInfo | undefined {
    if (!this.sessions.has(sessionId)) return undefined;
    return { backend: this.name, ...(this.liveUrl ? { live_url: this.liveUrl } : {}) };
  }

  async closeSession(sessionId: string): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.sessions.delete(sessionId);
    if (!session.ownUser) return;
    try {
      await this.client.request(
        'DELETE',
        `/sessions/${encodeURIComponent(session.userId)}`,
        undefined,
        10_000,
      );
    } catch (error) {
      this.log.warn('camofox session close failed', { reason: (error as Error).message });
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.sessions.keys()].map((id) => this.closeSession(id)));
  }

  private sessionOf(sessionId: string): CamofoxSession {
    let session = this.sessions.get(sessionId);
    if (!session) {
      const userId = this.o.userId ?? `tabgate_${randomBytes(5).toString('hex')}`;
      session = {
        sessionId,
        userId,
        ownUser: this.o.userId === undefined,
        sessionKey: this.o.sessionKey ?? `session_${sessionId.slice(0, 16)}`,
        tabId: null,
        pageOrigin: null,
      };
      this.sessions.set(sessionId, session);
    }
    return session;
  }

  private get timeoutMs(): number {
    return this.settings.commandTimeoutSeconds * 1000;
  }

  private async navigate(session: CamofoxSession, url: string) {
    await checkNavigation(url, this.policy);
    const refused = typedUrlRefusal(this.siteRules(session), url);
    if (refused) throw refused;
    let reply: CamofoxReply | null = null;
    if (session.tabId) {
      reply = await this.client.request(
        'POST',
        `/tabs/${encodeURIComponent(session.tabId)}/navigate`,
        { userId: session.userId, url },
        NAVIGATE_TIMEOUT_MS,
      );
      // Camofox collects idle tabs: a 404 means a fresh one is needed.
      if (reply.status === 404) session.tabId = null;
    }
    if (!session.tabId) {
      reply = await this.client.request(
        'POST',
        '/tabs',
        { userId: session.userId, sessionKey: session.sessionKey, listItemId: session.sessionKey, url },
        NAVIGATE_TIMEOUT_MS,
      );
      const tabId = reply.body.tabId;
      if (reply.status < 300 && typeof tabId === 'string') session.tabId = tabId;
    }
    await this.learnLiveView();
    if (!reply || reply.status >= 300)
      throw new TabgateError(
        'navigation_failed',
        `Camofox could not open the page: ${reply ? this.client.describe(reply) : 'no answer'}`,
      );
    const page = await this.judgePage(session, await this.snapshot(session));
    return {
      url: page.url ?? url,
      title: page.title ?? '',
      status: null,
      snapshot: snapshotResult(page, this.settings.snapshotMaxChars),
    };
  }

  private siteRules(session: CamofoxSession): SiteRules | undefined {
    return this.o.sites?.rulesFor(session.sessionId, true);
  }

  /**
   * The page an action left, judged before the agent may read or act on it: on a site the session may
   * not open, tabgate takes the tab off it and forgets the tab, so nothing the agent does reaches it.
   */
  private async judgePage(session: CamofoxSession, page: CamofoxSnapshot): Promise<CamofoxSnapshot> {
    const judged = judgeLanded(this.siteRules(session), page.url ?? '');
    session.pageOrigin = judged.origin;
    if (!judged.refusal) return page;
    await this.dropPage(session);
    throw judged.refusal;
  }

  private async dropPage(session: CamofoxSession): Promise<void> {
    const tabId = session.tabId;
    session.tabId = null;
    if (!tabId) return;
    try {
      await this.client.request(
        'POST',
        `/tabs/${encodeURIComponent(tabId)}/navigate`,
        { userId: session.userId, url: 'about:blank' },
        this.timeoutMs,
      );
    } catch (error) {
      // The tab is forgotten either way: no later call reaches it.
      this.log.warn('camofox could not take a refused page away', { reason: (error as Error).message });
    }
  }

  private async learnLiveView(): Promise<void> {
    if (this.liveUrl) return;
    this.liveView ??= discoverLiveView(this.client, this.o.url);
    this.liveUrl = await this.liveView;
  }

  private async snapshot(session: CamofoxSession): Promise<CamofoxSnapshot> {
    const tabId = this.requireTab(session);
    const reply = await this.client.request(
      'GET',
      `/tabs/${encodeURIComponent(tabId)}/snapshot?userId=${encodeURIComponent(session.userId)}`,
      undefined,
      this.timeoutMs,
    );
    if (reply.status === 404 && typeof reply.body.code !== 'string') throw this.tabGone(session);
    if (reply.status >= 300) {
      const failure = camofoxFailure(reply, 'snapshot', undefined, this.client.words(reply));
      if (failure.tabGone) session.tabId = null;
      throw failure.error;
    }
    if (typeof reply.body.snapshot !== 'string')
      throw new TabgateError('backend_unavailable', 'Camofox answered the snapshot without one.');
    return reply.body as unknown as CamofoxSnapshot;
  }

  private async onRef(session: CamofoxSession, action: 'click' | 'type', ref: string, extra: object) {
    const id = camofoxRef(ref);
    if (!id) throw new TabgateError('stale_ref', `${ref} is not a ref from this page.`);
    await this.tabCall(session, action, { ref: id, ...extra }, ref);
  }

  /** One call on the session's tab; a refusal becomes the code other backends give for the same case. */
  private async tabCall(
    session: CamofoxSession,
    action: string,
    body: object,
    ref?: string,
  ): Promise<CamofoxReply> {
    const tabId = this.requireTab(session);
    const reply = await this.client.request(
      'POST',
      `/tabs/${encodeURIComponent(tabId)}/${action}`,
      { userId: session.userId, ...body },
      this.timeoutMs,
    );
    if (reply.status < 300) return reply;
    // Camofox's own "Tab not found" carries no code: the tab was collected while idle.
    if (reply.status === 404 && typeof reply.body.code !== 'string') throw this.tabGone(session);
    const failure = camofoxFailure(reply, action, ref, this.client.words(reply));
    if (failure.tabGone) session.tabId = null;
    throw failure.error;
  }

  private requireTab(session: CamofoxSession): string {
    if (!session.tabId) throw new TabgateError('no_page', 'No page is open on Camofox yet; navigate first.');
    return session.tabId;
  }

  private tabGone(session: CamofoxSession): TabgateError {
    session.tabId = null;
    return new TabgateError('no_page', 'Camofox closed the tab (idle); navigate again.');
  }
}
