/**
 * The engine over one browser-level CDP connection (a local Chromium, a provider's CDP URL): target
 * discovery routed to the session that owns each context, new isolated contexts on demand, and the
 * network guard that every request of the browser passes (network-guard.ts).
 */
import type { SecretFill, SiteRules } from '../protocol/index.js';
import type { TargetInfo } from './cdp-types.js';
import { mayNeedApproval } from './action-gate.js';
import { ContextSession } from './context-session.js';
import type { DialogSettings } from './dialogs.js';
import {
  NetworkGuard,
  type FrameJudge,
  type HostJudge,
  type HostVerdict,
  type Refusal,
  type RequestHolder,
  type UrlSecretJudge,
} from './network-guard.js';
import { CdpSession, type CdpTransport } from './transport.js';

export interface BrowserEngineOptions {
  /** Where the browser may go; every request of every target is judged before it leaves. */
  judge: HostJudge;
  /**
   * Also deny Chromium's own Local Network Access permission in each session's context: the browser
   * then refuses a public page's requests to private addresses on the address it actually connected
   * to, WebSockets included, which request interception does not see.
   */
  denyLocalNetwork: boolean;
  /**
   * The site rules a frame is held to when it belongs to no session this engine can name (a frame
   * that came and went before it could be traced): the backend's own, without any session's grants.
   * Without it, frames are not judged by site at all (the extension judges them itself).
   */
  baseSites?: () => SiteRules;
  /**
   * Which of these secrets a URL carries, in any encoding (the gateway's vault knows the encodings);
   * with it, a request carrying a secret any session filled is failed before it leaves the browser.
   */
  urlCarries?: (url: string, secrets: readonly SecretFill[]) => string | null;
  /** Told of every request the guard refused (the backend logs it; a secret's URL is its origin only). */
  onRefusal?: (refusal: Refusal) => void;
}

/** Frames already traced to their session: one CDP round trip per new frame, not per request. */
const MAX_TRACED_FRAMES = 2_048;

const LOCAL_NETWORK_PERMISSIONS = ['loopback-network', 'local-network', 'local-network-access'];
/**
 * What a page may ask a person for (the permission prompts). No person sees this browser's
 * prompts, and a provider's browser may be set to grant them: each session's context refuses them.
 */
const PAGE_PERMISSIONS = ['geolocation', 'notifications', 'camera', 'microphone'];

export class BrowserEngine implements FrameJudge, RequestHolder, UrlSecretJudge {
  readonly root: CdpSession;
  private readonly sessions = new Set<ContextSession>();
  private guard: NetworkGuard | undefined;
  private readonly tracedFrames = new Map<string, ContextSession | null>();

  private constructor(
    readonly transport: CdpTransport,
    private readonly options: BrowserEngineOptions,
  ) {
    this.root = new CdpSession(transport, undefined);
    this.root.on<{ targetInfo: TargetInfo }>('Target.targetCreated', ({ targetInfo }) => {
      for (const session of this.sessions) if (session.owns(targetInfo)) session.onTargetCreated(targetInfo);
    });
    this.root.on<{ targetInfo: TargetInfo }>('Target.targetInfoChanged', ({ targetInfo }) => {
      for (const session of this.sessions) session.onTargetInfoChanged(targetInfo);
    });
    this.root.on<{ targetId: string }>('Target.targetDestroyed', ({ targetId }) => {
      for (const session of this.sessions) session.onTargetDestroyed(targetId);
    });
  }

  /** Fails (fail closed) when the browser does not accept request interception. */
  static async connect(transport: CdpTransport, options: BrowserEngineOptions): Promise<BrowserEngine> {
    const engine = new BrowserEngine(transport, options);
    const guard = await NetworkGuard.enable(
      engine.root,
      options.judge,
      options.baseSites ? engine : undefined,
      options.urlCarries ? engine : undefined,
    );
    guard.onRefusal((refusal) => {
      options.onRefusal?.(refusal);
      for (const session of engine.sessions) session.onRefusal(refusal);
    });
    guard.holder = engine;
    engine.guard = guard;
    await engine.root.send('Target.setDiscoverTargets', { discover: true });
    return engine;
  }

  get closed(): boolean {
    return this.transport.closed;
  }

  /**
   * A session's browser: a fresh isolated context, or (`isolated: false`, for providers whose browser
   * is already made for one session) the default context and the pages already in it.
   */
  async openSession(
    options: { isolated: boolean; sites?: () => SiteRules; dialogs?: DialogSettings } = {
      isolated: true,
    },
  ): Promise<ContextSession> {
    if (options.isolated) {
      const { browserContextId } = await this.root.send<{ browserContextId: string }>(
        'Target.createBrowserContext',
        {
          disposeOnDetach: true,
        },
      );
      await this.denyPermissions(browserContextId);
      const session = new ContextSession(
        this.root,
        browserContextId,
        true,
        this.guard,
        options.sites,
        options.dialogs,
      );
      this.sessions.add(session);
      return session;
    }
    const { targetInfos } = await this.root.send<{ targetInfos: TargetInfo[] }>('Target.getTargets');
    const pages = targetInfos.filter((info) => info.type === 'page');
    await this.denyPermissions(pages[0]?.browserContextId);
    const session = new ContextSession(
      this.root,
      pages[0]?.browserContextId,
      false,
      this.guard,
      options.sites,
      options.dialogs,
    );
    this.sessions.add(session);
    for (const info of pages) if (session.owns(info)) session.onTargetCreated(info);
    return session;
  }

  private async denyPermissions(browserContextId: string | undefined): Promise<void> {
    // Chromium 156 gates loopback targets by `loopback-network` and private ones by `local-network`;
    // older ones know `local-network-access`. Defence in depth only: a browser that knows none of them
    // is still guarded by Fetch, so an unknown name is no failure.
    const names = [...PAGE_PERMISSIONS, ...(this.options.denyLocalNetwork ? LOCAL_NETWORK_PERMISSIONS : [])];
    await Promise.all(
      names.map((name) =>
        this.root
          .send('Browser.setPermission', {
            permission: { name },
            setting: 'denied',
            ...(browserContextId ? { browserContextId } : {}),
          })
          .catch(() => undefined),
      ),
    );
  }

  /**
   * The site verdict on moving a frame to `url`, under the rules of the session the frame belongs to: a
   * tab's main frame id is its target id, so is an out-of-process iframe's; an in-process iframe is known
   * to its tab. A frame traced to no session is held to the backend's base rules, which no grant widens.
   */
  judgeFrame(url: string, frameId: string | undefined): HostVerdict | Promise<HostVerdict> {
    const known = frameId === undefined ? null : this.sessionOfFrame(frameId);
    if (known !== undefined || frameId === undefined) return this.siteVerdict(known ?? null, url);
    return this.traceFrame(frameId).then((session) => this.siteVerdict(session, url));
  }

  /**
   * The secret a request's URL carries, of those any session of this browser filled. Every session's,
   * not only the one the request came from: a worker's request names no frame, and a value one session
   * filled has no business in another's URLs either.
   */
  secretIn(url: string): string | null {
    const carries = this.options.urlCarries;
    if (!carries) return null;
    const secrets: SecretFill[] = [];
    for (const session of this.sessions)
      for (const fill of session.filledSecrets()) if (!ownsUsername(fill, url)) secrets.push(fill);
    return secrets.length === 0 ? null : carries(url, secrets);
  }

  /**
   * The secret a request's body carries to an origin other than the secret's own (where the sign-in
   * form posts it), of those any session of this browser filled.
   */
  secretInBody(url: string, body: string): string | null {
    const carries = this.options.urlCarries;
    if (!carries) return null;
    const secrets: SecretFill[] = [];
    for (const session of this.sessions)
      for (const fill of session.filledSecrets()) if (!sameOrigin(fill, url)) secrets.push(fill);
    return secrets.length === 0 ? null : carries(body, secrets);
  }

  /** A request is held for the running call of the session its frame belongs to, if that call gates. */
  hold(request: Parameters<RequestHolder['hold']>[0]): Promise<boolean> | null {
    if (request.frameId === undefined || !mayNeedApproval(request)) return null;
    const known = this.sessionOfFrame(request.frameId);
    if (known !== undefined) return known?.holdRequest(request) ?? null;
    return this.traceFrame(request.frameId).then(
      (session) => session?.holdRequest(request) ?? Promise.resolve(true),
    );
  }

  private siteVerdict(session: ContextSession | null, url: string): HostVerdict {
    const rules = session?.siteRules() ?? this.options.baseSites?.();
    if (!rules) return { allowed: true };
    const decision = rules.decideUrl(url);
    return decision.allowed
      ? decision
      : { allowed: false, code: decision.code, reason: decision.reason, rule: decision.rule };
  }

  /** The session a frame is known to belong to; undefined when it must be traced. */
  private sessionOfFrame(frameId: string): ContextSession | null | undefined {
    if (this.tracedFrames.has(frameId)) return this.tracedFrames.get(frameId);
    for (const session of this.sessions) if (session.knowsFrame(frameId)) return session;
    return undefined;
  }

  private async traceFrame(frameId: string): Promise<ContextSession | null> {
    let session: ContextSession | null = null;
    try {
      const { targetInfo } = await this.root.send<{ targetInfo: TargetInfo }>('Target.getTargetInfo', {
        targetId: frameId,
      });
      session = [...this.sessions].find((candidate) => candidate.ownsContextOf(targetInfo)) ?? null;
    } catch {
      // Not a target: an in-process iframe its tab may have learnt of meanwhile.
      session = [...this.sessions].find((candidate) => candidate.knowsFrame(frameId)) ?? null;
    }
    if (session) {
      if (this.tracedFrames.size >= MAX_TRACED_FRAMES)
        this.tracedFrames.delete(this.tracedFrames.keys().next().value ?? '');
      this.tracedFrames.set(frameId, session);
    }
    return session;
  }

  async closeSession(session: ContextSession): Promise<void> {
    this.sessions.delete(session);
    for (const [frameId, owner] of this.tracedFrames)
      if (owner === session) this.tracedFrames.delete(frameId);
    await session.close();
  }
}

/**
 * A user name in its own site's URLs is how sites work (a profile at /octocat, an account page with
 * ?user=): after a sign-in the site's requests carry it as a matter of course. Anywhere else, and for
 * every other kind of secret anywhere, a URL that carries a filled value is refused.
 */
function ownsUsername(fill: SecretFill, url: string): boolean {
  return fill.field === 'username' && sameOrigin(fill, url);
}

function sameOrigin(fill: SecretFill, url: string): boolean {
  try {
    return new URL(url).origin === fill.origin;
  } catch {
    return false;
  }
}
