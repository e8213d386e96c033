/**
 * Sessions on a cloud provider's browsers. Each tabgate session gets its own provider session, created
 * lazily on the first call; tabgate's own engine drives the returned CDP URL (through the CDP-URL
 * backend), so the toolset is the same as on the local Chromium. The provider session is released on
 * session close, after `browser.inactivity_timeout` idle, and on shutdown; one past its `expires_at` is
 * replaced on the next call. At most `browser.max_sessions` provider sessions are open at once (a
 * newcomer waits briefly, then gets `browser_busy`); calls within each are bounded by its engine backend.
 * Provider failures reach the agent as `provider_not_configured` or
 * `provider_error`: there is never a silent switch to another browser.
 */
import { TabgateError, type ToolName, type ToolResults } from '../../../protocol/index.js';
import type { BrowserProvider, ProviderSessionMetadata } from '../../../providers/api.js';
import type { Logger } from '../../../log/logger.js';
import { systemTimers, type TimerClock } from '../../clock.js';
import { Admission, type Release } from '../admission.js';
import type { BrowserBackend, SessionBrowserInfo, ToolCall } from '../backend.js';
import { checkNavigation, NetworkPolicy, type Resolver } from '../network-policy.js';
import type { BrowserSettings } from '../../config/browser-settings.js';
import { SessionTable, type SessionEntry } from '../session-table.js';

/** What the provider backend needs to drive one CDP URL: the engine's CDP-URL backend. */
export interface CdpUrlTarget {
  name: string;
  cdpUrl: string;
  remote: true;
  /** A context per session when the browser is shared (remote-cdp); the default context otherwise. */
  isolated: boolean;
}
export type OpenCdpUrl = (target: CdpUrlTarget) => BrowserBackend;

export interface ProviderBackendOptions {
  provider: BrowserProvider;
  settings: BrowserSettings;
  log: Logger;
  openCdpUrl: OpenCdpUrl;
  /** DNS for the network policy's check of a navigation target (tests pass a fixed table). */
  resolve?: Resolver;
  /** Admission waits, idle-outs and `expires_at` are judged on it; tests step a manual one. */
  clock?: TimerClock;
}

interface ProviderSession {
  metadata: ProviderSessionMetadata;
  engine: BrowserBackend;
  /** The first navigation's result says which features the provider granted; later ones need not. */
  featuresShown: boolean;
}

/** The provider session, created once the tabgate session is admitted. */
interface Pending {
  created: Promise<ProviderSession>;
  /** The same session once created, for synchronous questions (session details). */
  ready?: ProviderSession;
}
type Session = SessionEntry<Pending>;

export class ProviderBackend implements BrowserBackend {
  readonly name: string;
  private readonly sessions: SessionTable<Pending>;
  private readonly policy: NetworkPolicy;
  private readonly clock: TimerClock;
  private closing = false;

  constructor(private readonly options: ProviderBackendOptions) {
    this.name = options.provider.name;
    this.clock = options.clock ?? systemTimers;
    this.sessions = new SessionTable({
      admission: new Admission(options.settings, this.clock),
      clock: this.clock,
      settings: options.settings,
      hadBrowser: (pending) => pending.ready !== undefined,
      closeIdle: (sessionId) => {
        this.options.log.info('closing idle provider session', { provider: this.name, session: sessionId });
        return this.closeSession(sessionId);
      },
    });
    this.policy = new NetworkPolicy({
      remote: true,
      allowPrivateUrls: options.settings.allowPrivateUrls,
      allowedPrivateHosts: options.settings.allowedPrivateHosts,
      resolve: options.resolve,
    });
  }

  /** A provider's browser is on its machine: no files reach it or come back from it. */
  supports(tool: ToolName): boolean {
    return tool !== 'browser_upload' && tool !== 'browser_downloads';
  }

  call<N extends ToolName>(call: ToolCall<N>): Promise<ToolResults[N]> {
    return this.sessions.deliver(call.sessionId, this.run(call));
  }

  private async run<N extends ToolName>(call: ToolCall<N>): Promise<ToolResults[N]> {
    if (this.closing) throw new TabgateError('backend_unavailable', 'The browser backend is shutting down.');
    // Refused before a (billed) provider session is created; the session's own network guard judges
    // every request the browser then makes, redirects and page-initiated ones included.
    if (call.tool === 'browser_navigate')
      await checkNavigation((call.args as { url: string }).url, this.policy);
    const entry = await this.session(call);
    return this.sessions.use(entry, async () => {
      const session = await entry.data.created;
      const result = await session.engine.call(call);
      if (call.tool !== 'browser_navigate' || session.featuresShown) return result;
      session.featuresShown = true;
      return withFeatures(result, session.metadata);
    });
  }

  /** The live session, created on first use and replaced when the provider says it has expired. */
  private async session(call: ToolCall): Promise<Session> {
    const { sessionId } = call;
    const known = this.sessions.get(sessionId);
    if (known) {
      const current = await known.data.created.catch(() => undefined);
      const held = this.sessions.holds(known);
      if (current && held && !expired(current.metadata, this.clock.now())) return known;
      if (current && held) {
        this.options.log.info('provider session expired; replacing it', {
          provider: this.name,
          session: sessionId,
          expires_at: current.metadata.expires_at,
        });
        await this.closeSession(sessionId);
      }
    }
    const again = this.sessions.get(sessionId);
    if (again) return again;
    const entry = this.sessions.admit(sessionId, call.signal, (admitted, release) => {
      const pending: Pending = { created: admitted.then(() => this.create(sessionId, release)) };
      void pending.created.then(
        (session) => void (pending.ready = session),
        () => {
          if (this.sessions.holds(entry)) this.sessions.take(sessionId);
        },
      );
      return pending;
    });
    return entry;
  }

  private async create(sessionId: string, slot: Release): Promise<ProviderSession> {
    const { provider, log } = this.options;
    let metadata: ProviderSessionMetadata;
    try {
      metadata = await provider.createSession(sessionId);
    } catch (error) {
      slot();
      throw error;
    }
    if (this.closing) {
      slot();
      // Shut down while the vendor was creating it: release, so no cloud browser is left running.
      await this.release(metadata, 'close');
      throw new TabgateError('backend_unavailable', 'The browser backend is shutting down.');
    }
    log.info('provider session created', {
      provider: provider.name,
      session: sessionId,
      provider_session: metadata.bb_session_id,
      name: metadata.session_name,
      ...(metadata.external_call_id ? { external_call_id: metadata.external_call_id } : {}),
    });
    const engine = this.options.openCdpUrl({
      name: provider.name,
      cdpUrl: metadata.cdp_url,
      remote: true,
      isolated: metadata.features.shared_browser === true,
    });
    return { metadata, engine, featuresShown: false };
  }

  describeSession(sessionId: string): SessionBrowserInfo {
    const metadata = this.sessions.get(sessionId)?.data.ready?.metadata;
    const info: SessionBrowserInfo = { backend: this.name, provider: this.name };
    if (!metadata) return info;
    info.features = metadata.features;
    if (metadata.live_url) info.live_url = metadata.live_url;
    if (metadata.external_call_id) info.external_call_id = metadata.external_call_id;
    return info;
  }

  /** The provider sessions open now, by tabgate session id (for diagnostics and tests). */
  async openSessions(): Promise<Map<string, ProviderSessionMetadata>> {
    const out = new Map<string, ProviderSessionMetadata>();
    for (const id of this.sessions.ids()) {
      const session = await this.sessions.get(id)?.data.created.catch(() => undefined);
      if (session) out.set(id, session.metadata);
    }
    return out;
  }

  private async release(metadata: ProviderSessionMetadata, how: 'close' | 'emergency'): Promise<void> {
    const { provider, log } = this.options;
    try {
      const released =
        how === 'close'
          ? await provider.closeSession(metadata.bb_session_id)
          : await provider.emergencyCleanup(metadata.bb_session_id);
      if (!released)
        log.warn('provider session may still be running', {
          provider: provider.name,
          provider_session: metadata.bb_session_id,
        });
    } catch (error) {
      // The contract says never throw; a third-party plugin may anyway.
      log.warn('provider release threw', {
        provider: provider.name,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  async closeSession(sessionId: string): Promise<void> {
    this.sessions.closed(sessionId);
    const entry = this.sessions.take(sessionId);
    if (!entry) return;
    const session = await entry.data.created.catch(() => undefined);
    if (!session) return;
    await session.engine.close().catch(() => undefined);
    await this.release(session.metadata, 'close');
    entry.release();
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.sessions.stop();
    await Promise.all(this.sessions.ids().map((id) => this.closeSession(id)));
  }

  /**
   * Signal-time cleanup: releases every provider session with the provider's short emergency timeout,
   * without waiting for the engine to close pages. Never throws.
   */
  async emergencyCleanup(): Promise<void> {
    this.closing = true;
    this.sessions.stop();
    const taken = this.sessions.ids().map((id) => this.sessions.take(id));
    await Promise.all(
      taken.map(async (entry) => {
        const session = await entry?.data.created.catch(() => undefined);
        if (!entry || !session) return;
        entry.release();
        await Promise.all([
          session.engine.close().catch(() => undefined),
          this.release(session.metadata, 'emergency'),
        ]);
      }),
    );
  }
}

/** The first navigation's result, with the flags the provider granted (the reference's first-navigate notice). */
function withFeatures<R extends object>(result: R, metadata: ProviderSessionMetadata): R {
  return { ...result, features: metadata.features };
}

function expired(metadata: ProviderSessionMetadata, now: number): boolean {
  if (!metadata.expires_at) return false;
  const at = Date.parse(metadata.expires_at);
  return Number.isFinite(at) && at <= now;
}
