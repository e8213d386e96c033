/**
 * The engine over one browser-level CDP connection (a local Chromium, a provider's CDP URL): target
 * discovery routed to the session that owns each context, and new isolated contexts on demand.
 */
import type { TargetInfo } from './cdp-types.js';
import { ContextSession } from './context-session.js';
import { CdpSession, type CdpTransport } from './transport.js';

export class BrowserEngine {
  readonly root: CdpSession;
  private readonly sessions = new Set<ContextSession>();

  private constructor(readonly transport: CdpTransport) {
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

  static async connect(transport: CdpTransport): Promise<BrowserEngine> {
    const engine = new BrowserEngine(transport);
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
  async openSession(options: { isolated: boolean } = { isolated: true }): Promise<ContextSession> {
    if (options.isolated) {
      const { browserContextId } = await this.root.send<{ browserContextId: string }>(
        'Target.createBrowserContext',
        {
          disposeOnDetach: true,
        },
      );
      const session = new ContextSession(this.root, browserContextId, true);
      this.sessions.add(session);
      return session;
    }
    const { targetInfos } = await this.root.send<{ targetInfos: TargetInfo[] }>('Target.getTargets');
    const pages = targetInfos.filter((info) => info.type === 'page');
    const session = new ContextSession(this.root, pages[0]?.browserContextId, false);
    this.sessions.add(session);
    for (const info of pages) if (session.owns(info)) session.onTargetCreated(info);
    return session;
  }

  async closeSession(session: ContextSession): Promise<void> {
    this.sessions.delete(session);
    await session.close();
  }
}
