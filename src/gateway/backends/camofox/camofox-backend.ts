/**
 * Camofox (an anti-detection Firefox served over REST) as a backend: not CDP, so each tool maps onto
 * one of Camofox's calls (camofox-tools.ts), with its snapshot and refs translated into tabgate's format
 * (camofox-snapshot.ts) and its failures into tabgate's codes. Each tabgate session is one Camofox
 * user (`tabgate_<hex>`, its own cookies) with one tab, made on the first navigation (camofox-tab.ts);
 * closing deletes the user. Here: the checks around the tools (the site rules on a typed URL and on
 * the page an action left, the approvals) and the sessions. What Camofox has no call for is refused
 * with `unsupported_on_backend`, never emulated.
 */
import { randomBytes } from 'node:crypto';
import { TabgateError, type SiteRules, type ToolName } from '../../../protocol/index.js';
import type { Logger } from '../../../log/logger.js';
import type { SessionBrowserInfo, ToolCall, UntypedBackend } from '../backend.js';
import type { SiteRulesSource } from '../site-rules-source.js';
import { checkNavigation, NetworkPolicy, type Resolver } from '../network-policy.js';
import type { BrowserSettings } from '../../config/browser-settings.js';
import { CamofoxClient } from './camofox-client.js';
import { askApproval, judgeLanded, typedUrlRefusal } from './camofox-guards.js';
import { discoverLiveView, webAddress } from './camofox-live-view.js';
import { snapshotResult, type CamofoxSnapshot } from './camofox-snapshot.js';
import { CamofoxTab } from './camofox-tab.js';
import { CAMOFOX_TOOLS, runCamofoxTool, type CamofoxPages } from './camofox-tools.js';

export { CAMOFOX_TOOLS } from './camofox-tools.js';

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

/**
 * Actions after which the page may be on another site (a link, a form, a key, history): Camofox has no
 * network hook to stop the page's own navigation, so the page they leave is judged before the answer.
 */
const MAY_MOVE: ReadonlySet<ToolName> = new Set<ToolName>(['browser_click', 'browser_type', 'browser_press']);

export class CamofoxBackend implements UntypedBackend {
  readonly name = 'camofox';
  private readonly client: CamofoxClient;
  private readonly tabs = new Map<string, CamofoxTab>();
  private readonly policy: NetworkPolicy;
  /** Where a person can watch, looked up once, on the first page a session opens. */
  private liveView: Promise<string | undefined> | undefined;
  private liveUrl: string | undefined;
  private readonly pages: CamofoxPages;

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
    this.pages = {
      navigate: (tab, url) => this.navigate(tab, url),
      judged: (tab) => this.judged(tab),
      snapshotMaxChars: () => this.settings.snapshotMaxChars,
    };
  }

  async call(call: ToolCall): Promise<unknown> {
    if (!CAMOFOX_TOOLS.has(call.tool))
      throw new TabgateError(
        'unsupported_on_backend',
        `${call.tool} is not available on Camofox: its REST API has no call for it.`,
      );
    const tab = this.tabOf(call.sessionId);
    if (call.secret)
      throw new TabgateError(
        'unsupported_on_backend',
        'Camofox cannot show tabgate the frame a field is in, so it never types a vault secret; use another browser for sign-ins.',
      );
    await askApproval(call, tab.pageOrigin);
    const result = await runCamofoxTool(tab, call, this.pages);
    if (MAY_MOVE.has(call.tool) && this.siteRules(tab)) {
      // A page that cannot be read now is judged at its next read, before any ref from it exists.
      const page = await tab.snapshot().catch(() => null);
      if (page) await this.judgePage(tab, page);
    }
    return result;
  }

  describeSession(sessionId: string): SessionBrowserInfo | undefined {
    if (!this.tabs.has(sessionId)) return undefined;
    return { backend: this.name, ...(this.liveUrl ? { live_url: this.liveUrl } : {}) };
  }

  async closeSession(sessionId: string): Promise<void> {
    const tab = this.tabs.get(sessionId);
    if (!tab) return;
    this.tabs.delete(sessionId);
    try {
      await tab.close();
    } catch (error) {
      this.log.warn('camofox session close failed', { reason: (error as Error).message });
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.tabs.keys()].map((id) => this.closeSession(id)));
  }

  private tabOf(sessionId: string): CamofoxTab {
    let tab = this.tabs.get(sessionId);
    if (!tab) {
      tab = new CamofoxTab(
        this.client,
        sessionId,
        this.o.userId ?? `tabgate_${randomBytes(5).toString('hex')}`,
        this.o.userId === undefined,
        this.o.sessionKey ?? `session_${sessionId.slice(0, 16)}`,
        () => this.settings.commandTimeoutSeconds * 1000,
      );
      this.tabs.set(sessionId, tab);
    }
    return tab;
  }

  private async navigate(tab: CamofoxTab, url: string) {
    await checkNavigation(url, this.policy);
    const refused = typedUrlRefusal(this.siteRules(tab), url);
    if (refused) throw refused;
    const reply = await tab.open(url);
    await this.learnLiveView();
    if (!reply || reply.status >= 300)
      throw new TabgateError(
        'navigation_failed',
        `Camofox could not open the page: ${reply ? this.client.describe(reply) : 'no answer'}`,
      );
    const page = await this.judged(tab);
    return {
      url: page.url ?? url,
      title: page.title ?? '',
      status: null,
      snapshot: snapshotResult(page, this.settings.snapshotMaxChars),
    };
  }

  private async judged(tab: CamofoxTab): Promise<CamofoxSnapshot> {
    return this.judgePage(tab, await tab.snapshot());
  }

  private siteRules(tab: CamofoxTab): SiteRules | undefined {
    return this.o.sites?.rulesFor(tab.sessionId, true);
  }

  /**
   * The page an action left, judged before the agent may read or act on it: on a site the session may
   * not open, tabgate takes the tab off it and forgets the tab, so nothing the agent does reaches it.
   */
  private async judgePage(tab: CamofoxTab, page: CamofoxSnapshot): Promise<CamofoxSnapshot> {
    const judged = judgeLanded(this.siteRules(tab), page.url ?? '');
    tab.pageOrigin = judged.origin;
    if (!judged.refusal) return page;
    await tab.drop().catch((error: unknown) => {
      // The tab is forgotten either way: no later call reaches it.
      this.log.warn('camofox could not take a refused page away', { reason: (error as Error).message });
    });
    throw judged.refusal;
  }

  private async learnLiveView(): Promise<void> {
    if (this.liveUrl) return;
    this.liveView ??= discoverLiveView(this.client, this.o.url);
    this.liveUrl = await this.liveView;
  }
}
