/**
 * The engine over one browser-level CDP connection (a local Chromium, a provider's CDP URL): target
 * discovery routed to the session that owns each context, new isolated contexts on demand, and the
 * network guard that every request of the browser passes (network-guard.ts).
 */
import type { TargetInfo } from './cdp-types.js';
import { ContextSession } from './context-session.js';
import type { DialogSettings } from './dialogs.js';
import { NetworkGuard, type HostJudge } from './network-guard.js';
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
}

const LOCAL_NETWORK_PERMISSIONS = ['loopback-network', 'local-network', 'local-network-access'];

export class BrowserEngine {
  readonly root: CdpSession;
  private readonly sessions = new Set<ContextSession>();
  private guard: NetworkGuard | undefined;

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
    const guard = await NetworkGuard.enable(engine.root, options.judge);
    guard.onRefusal((refusal) => {
      for (const session of engine.sessions) session.onRefusal(refusal);
    });
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
    options: { isolated: boolean; dialogs?: DialogSettings } = { isolated: true },
  ): Promise<ContextSession> {
    if (options.isolated) {
      const { browserContextId } = await this.root.send<{ browserContextId: string }>(
        'Target.createBrowserContext',
        {
          disposeOnDetach: true,
        },
      );
      await this.denyLocalNetwork(browserContextId);
      const session = new ContextSession(this.root, browserContextId, true, this.guard, options.dialogs);
      this.sessions.add(session);
      return session;
    }
    const { targetInfos } = await this.root.send<{ targetInfos: TargetInfo[] }>('Target.getTargets');
    const pages = targetInfos.filter((info) => info.type === 'page');
    await this.denyLocalNetwork(pages[0]?.browserContextId);
    const session = new ContextSession(
      this.root,
      pages[0]?.browserContextId,
      false,
      this.guard,
      options.dialogs,
    );
    this.sessions.add(session);
    for (const info of pages) if (session.owns(info)) session.onTargetCreated(info);
    return session;
  }

  private async denyLocalNetwork(browserContextId: string | undefined): Promise<void> {
    if (!this.options.denyLocalNetwork) return;
    // Chromium 156 gates loopback targets by `loopback-network` and private ones by `local-network`;
    // older ones know `local-network-access`. Defence in depth only: a browser that knows none of them
    // is still guarded by Fetch, so an unknown name is no failure.
    await Promise.all(
      LOCAL_NETWORK_PERMISSIONS.map((name) =>
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

  async closeSession(session: ContextSession): Promise<void> {
    this.sessions.delete(session);
    await session.close();
  }
}
