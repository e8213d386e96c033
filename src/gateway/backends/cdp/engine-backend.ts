/**
 * A `BrowserBackend` on the engine over one browser connection, whatever opened it (a Chromium we
 * launched, a provider's CDP URL). It owns the session bookkeeping every such backend needs: one
 * context per session opened lazily, calls of a session run one at a time under the command timeout,
 * idle sessions swept (the next call says so with a `session_reset` notice), a lost browser reported
 * once per affected session as `browser_crashed`, and admission: at most `max_sessions` contexts and
 * `max_concurrent_actions` calls at once, the rest queued briefly, then refused with `browser_busy`.
 */
import { TabgateError, type ToolInput, type ToolName, type ToolResults } from '../../../protocol/index.js';
import {
  BrowserEngine,
  CdpError,
  isCdpFailure,
  runTool,
  type ActionGate,
  type ContextSession,
  type EngineOptions,
} from '../../../engine/index.js';
import type { Logger } from '../../../log/logger.js';
import { systemTimers, type Timer, type TimerClock } from '../../clock.js';
import { Admission } from '../admission.js';
import type { BrowserBackend, ToolCall } from '../backend.js';
import { NetworkPolicy, type Resolver } from '../network-policy.js';
import type { BrowserSettings } from '../../config/browser-settings.js';
import { SessionTable, type SessionEntry } from '../session-table.js';
import type { SiteRulesSource } from '../site-rules-source.js';
import { CdpConnection } from './cdp-connection.js';
import { SessionDownloads, sessionFolder } from './downloads.js';
import { checkUploadPaths } from './upload-paths.js';
import { urlCarries } from '../../secrets/secret-forms.js';

/** A connected browser and how to let go of it. */
export interface OpenBrowser {
  connection: CdpConnection;
  /** Ends the browser (a launched one) or only the connection (someone else's). Never throws. */
  dispose(): Promise<void>;
}

export interface BrowserSource {
  name: string;
  /** The browser is not on this machine: private addresses are refused unless allowed. */
  remote: boolean;
  /** Each session in its own browser context; false uses the browser's default context. */
  isolated: boolean;
  open(): Promise<OpenBrowser>;
  /** DNS for the network policy (tests pass a fixed table); the system resolver by default. */
  resolve?: Resolver;
}

interface SessionState {
  /** Opened by the session's first admitted call. */
  context: Promise<ContextSession> | undefined;
  /** The session's calls, run one at a time. */
  queue: Promise<unknown>;
}
type Session = SessionEntry<SessionState>;

interface Connected {
  browser: OpenBrowser;
  engine: BrowserEngine;
}

export class EngineBackend implements BrowserBackend {
  readonly name: string;
  private connected: Promise<Connected> | undefined;
  private readonly sessions: SessionTable<SessionState>;
  private readonly crashed = new Set<string>();
  private readonly admission: Admission;
  private readonly policy: NetworkPolicy;
  private closing = false;

  constructor(
    private readonly source: BrowserSource,
    private readonly settings: BrowserSettings,
    private readonly log: Logger,
    /** Site grants, judged on every navigation of every frame (docs/safety.md). */
    private readonly sites?: SiteRulesSource,
    /** Command deadlines, admission waits and idle-outs run on it; tests step a manual one. */
    private readonly clock: TimerClock = systemTimers,
  ) {
    this.name = source.name;
    this.admission = new Admission(settings, clock);
    this.sessions = new SessionTable({
      admission: this.admission,
      clock,
      settings,
      hadBrowser: (state) => state.context !== undefined,
      closeIdle: (sessionId) => {
        this.log.info('closing idle browser session', { backend: this.name, session: sessionId });
        return this.closeSession(sessionId);
      },
    });
    this.policy = new NetworkPolicy({
      remote: source.remote,
      allowPrivateUrls: settings.allowPrivateUrls,
      allowedPrivateHosts: settings.allowedPrivateHosts,
      resolve: source.resolve,
    });
  }

  private get options(): EngineOptions {
    return {
      snapshotMaxChars: this.settings.snapshotMaxChars,
      commandTimeoutMs: this.settings.commandTimeoutSeconds * 1000,
      remote: this.source.remote,
      allowPrivateUrls: this.settings.allowPrivateUrls,
    };
  }

  /** Files move only where tabgate can reach the browser's disk: a browser on this machine. */
  supports(tool: ToolName): boolean {
    if (tool === 'browser_upload') return !this.source.remote;
    if (tool === 'browser_downloads') return !this.source.remote && this.settings.downloadsDir !== undefined;
    return true;
  }

  async call<N extends ToolName>(call: ToolCall<N>): Promise<ToolResults[N]> {
    if (this.closing) throw new TabgateError('backend_unavailable', 'The browser backend is shutting down.');
    if (this.crashed.delete(call.sessionId)) {
      throw new TabgateError(
        'browser_crashed',
        'The browser crashed and this session lost its pages; the next call starts a fresh browser.',
      );
    }
    const session =
      this.sessions.get(call.sessionId) ??
      this.sessions.admit(call.sessionId, call.signal, () => ({
        context: undefined,
        queue: Promise.resolve(),
      }));
    const run = session.data.queue.then(() => this.sessions.use(session, () => this.runNow(call, session)));
    session.data.queue = run.catch(() => undefined);
    return this.sessions.deliver(call.sessionId, run);
  }

  /**
   * The session's context, opened on its first call (inside that call's action slot, so a burst of new
   * sessions opens contexts `max_concurrent_actions` at a time, not all at once).
   */
  private contextOf(session: Session): Promise<ContextSession> {
    const { id: sessionId, data: state } = session;
    if (state.context) return state.context;
    if (!this.sessions.holds(session))
      throw new TabgateError(
        'backend_unavailable',
        'The session was closed while it waited for the browser.',
      );
    const { sites } = this;
    const remote = this.source.remote;
    const context = this.connect().then(async ({ engine }) => {
      const opened = await engine.openSession({
        isolated: this.source.isolated,
        sites: sites ? () => sites.rulesFor(sessionId, remote) : undefined,
        dialogs: {
          policy: this.settings.dialogPolicy,
          timeoutMs: this.settings.dialogTimeoutSeconds * 1000,
        },
      });
      await this.keepDownloads(engine, opened, sessionId);
      return opened;
    });
    context.catch(() => {
      if (this.sessions.holds(session)) this.forget(sessionId);
    });
    state.context = context;
    return context;
  }

  /**
   * Downloads are kept only where tabgate can read them: a browser on this machine, in a context of the
   * session's own. A remote browser's disk is the provider's, so it downloads nothing there.
   */
  private async keepDownloads(
    engine: BrowserEngine,
    context: ContextSession,
    sessionId: string,
  ): Promise<void> {
    const root = this.settings.downloadsDir;
    if (this.source.remote || !root || !context.contextId) {
      await engine.root
        .send('Browser.setDownloadBehavior', {
          behavior: 'deny',
          ...(context.contextId ? { browserContextId: context.contextId } : {}),
        })
        .catch(() => undefined);
      return;
    }
    const ledger = new SessionDownloads(
      engine.root,
      context.contextId,
      sessionFolder(root, sessionId),
      this.settings.downloadMaxBytes,
      (frameId) => context.ownsFrame(frameId),
    );
    await ledger.enable();
    context.downloads = ledger;
  }

  /** Runs `work` in one of the browser's `max_concurrent_actions` slots. */
  private async inActionSlot<T>(call: ToolCall, slotBy: number, work: () => Promise<T>): Promise<T> {
    const release = await this.admission.actions.acquire(slotBy, call.signal);
    try {
      return await work();
    } finally {
      release();
    }
  }

  private async runNow<N extends ToolName>(call: ToolCall<N>, session: Session): Promise<ToolResults[N]> {
    const state = session.data;
    // Measured from the call's start: a new session's wait for admission counts against its action window.
    const slotBy = this.admission.actionBy();
    const timeoutMs = this.options.commandTimeoutMs;
    let timer: Timer | undefined;
    let expire = () => undefined as void;
    const deadline = new Promise<never>((_resolve, reject) => {
      expire = () =>
        reject(
          new TabgateError('command_timeout', `${call.tool} did not finish within ${timeoutMs / 1000} s.`),
        );
      timer = this.clock.setTimer(expire, timeoutMs);
    });
    let running = true;
    // The time the owner takes to decide is not the browser's: the deadline stops while they decide.
    let left = timeoutMs;
    let since = this.clock.now();
    let deciding = 0;
    const gate = call.approvals;
    const approvals: ActionGate | undefined = gate && {
      policy: gate.policy,
      firstSecretUse: (origin) => gate.firstSecretUse(origin),
      secretUsed: (origin) => gate.secretUsed(origin),
      ask: (ask) => {
        if (deciding++ === 0) {
          timer?.cancel();
          left -= this.clock.now() - since;
        }
        return gate.ask(ask).finally(() => {
          // A call that ended meanwhile (cancelled, stopped) has no deadline left to restart.
          if (--deciding > 0 || !running) return;
          since = this.clock.now();
          timer = this.clock.setTimer(expire, Math.max(1000, left));
        });
      },
    };
    const aborted = new Promise<never>((_resolve, reject) => {
      call.signal?.addEventListener(
        'abort',
        () => {
          reject(new TabgateError('call_cancelled', 'The call was cancelled.'));
          // A cancelled call must not go on moving the page: a load it started (a navigation, a
          // click's) is stopped, so nothing it asked for arrives after the cancel.
          if (!running) return;
          void state.context
            ?.then((context) => context.currentTab()?.page.send('Page.stopLoading'))
            .catch(() => undefined);
        },
        { once: true },
      );
    });
    // The connection the call ran on: if it is gone when the call fails, the failure is the crash,
    // whatever error the engine happened to meet first (a stale world, a refused write).
    let ranOn: CdpConnection | undefined;
    try {
      const work = session.admitted.then(() =>
        this.inActionSlot(call, slotBy, async () => {
          const context = await this.contextOf(session);
          ranOn = (await this.connected)?.browser.connection;
          return runTool(
            context,
            call.tool,
            await this.checkedArgs(call),
            this.options,
            call.secret,
            approvals,
          );
        }),
      );
      return await Promise.race([work, deadline, aborted]);
    } catch (error) {
      // Refused before it ever had a context: the slot goes back, so a retry competes afresh and a caller
      // that gives up holds nothing until the idle sweep.
      if (error instanceof TabgateError && error.code === 'browser_busy' && !state.context)
        if (this.sessions.holds(session)) this.forget(call.sessionId);
      throw this.translate(error, call, ranOn?.closed === true);
    } finally {
      running = false;
      timer?.cancel();
    }
  }

  /** Upload paths are judged here, on the gateway's machine, before the browser sees one. */
  private async checkedArgs<N extends ToolName>(call: ToolCall<N>): Promise<ToolInput<N>> {
    if (call.tool !== 'browser_upload') return call.args;
    if (this.source.remote) {
      throw new TabgateError(
        'unsupported_on_backend',
        `${this.name}: the browser runs on another machine and CDP sets files by their path on that machine; tabgate does not copy files there.`,
      );
    }
    const args = call.args as ToolInput<'browser_upload'>;
    const paths = await checkUploadPaths(args.paths, this.settings.uploadRoots, this.settings.uploadMaxBytes);
    return { ...args, paths } as ToolInput<N>;
  }

  /**
   * Anything that is not already a TabgateError is a broken browser connection or a bug. `lost`: the
   * connection the call ran on is gone, so the failure is the crash, whatever error the engine happened
   * to meet first (a stale world, a refused write).
   */
  private translate(error: unknown, call: ToolCall, lost: boolean): TabgateError {
    if (lost) return this.crashedDuring(call);
    if (error instanceof TabgateError) return error;
    if (this.connected === undefined || isCdpFailure(error, 'closed')) return this.crashedDuring(call);
    this.log.error('browser call failed', {
      backend: this.name,
      tool: call.tool,
      error: String(error).slice(0, 300),
    });
    return new TabgateError('internal_error', `${call.tool} failed inside the browser engine.`);
  }

  private crashedDuring(call: ToolCall): TabgateError {
    this.crashed.delete(call.sessionId);
    this.forget(call.sessionId);
    return new TabgateError(
      'browser_crashed',
      'The browser went away during this call; the next call starts a fresh browser.',
    );
  }

  private connect(): Promise<Connected> {
    this.connected ??= this.open();
    return this.connected;
  }

  private async open(): Promise<Connected> {
    const sites = this.sites;
    const opening = this.source.open();
    let browser: OpenBrowser;
    try {
      browser = await opening;
    } catch (error) {
      this.connected = undefined;
      throw error;
    }
    const engine = await BrowserEngine.connect(browser.connection, {
      judge: this.policy,
      denyLocalNetwork: this.source.remote && !this.settings.allowPrivateUrls,
      baseSites: sites ? () => sites.baseRules(this.source.remote) : undefined,
      urlCarries,
      onRefusal: (refusal) => {
        // The URL of a secret's refusal is its origin alone; the secret is named, never its value.
        if (refusal.code === 'secret_in_url' || refusal.code === 'secret_in_body')
          this.log.warn(
            `request refused: its ${refusal.code === 'secret_in_url' ? 'URL' : 'body'} carried a vault secret`,
            {
              backend: this.name,
              origin: refusal.url,
              resource_type: refusal.resourceType,
              reason: refusal.reason,
            },
          );
      },
    }).catch(async (error: unknown) => {
      this.connected = undefined;
      await browser.dispose();
      // Fail closed: a browser whose requests cannot be judged is not driven at all.
      if (error instanceof CdpError && error.method === 'Fetch.enable') {
        throw new TabgateError(
          'backend_unavailable',
          `${this.name}: the browser refused request interception (Fetch.enable), which tabgate needs to keep it off addresses it may not reach.`,
        );
      }
      throw error;
    });
    const current = this.connected;
    browser.connection.onClose((reason) => {
      if (this.closing || this.connected !== current) return;
      this.log.warn('browser lost', { backend: this.name, reason });
      for (const sessionId of this.sessions.ids()) {
        this.crashed.add(sessionId);
        this.forget(sessionId);
      }
      this.connected = undefined;
      void browser.dispose();
    });
    return { browser, engine };
  }

  async closeSession(sessionId: string): Promise<void> {
    this.crashed.delete(sessionId);
    this.sessions.closed(sessionId);
    const context = this.forget(sessionId)?.data.context;
    if (!context) return;
    try {
      const opened = await context;
      const { engine } = await this.connect();
      (opened.downloads as SessionDownloads | undefined)?.dispose();
      await engine.closeSession(opened);
    } catch {
      // Closing never throws: a session whose browser is gone is closed already.
    }
  }

  /** Drops the session's bookkeeping and gives back its slot; the context itself is the caller's. */
  private forget(sessionId: string): Session | undefined {
    const session = this.sessions.take(sessionId);
    session?.release();
    return session;
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    this.sessions.stop();
    for (const sessionId of this.sessions.ids()) this.forget(sessionId);
    this.crashed.clear();
    const connected = this.connected;
    this.connected = undefined;
    if (!connected) return;
    try {
      const { browser } = await connected;
      await browser.dispose();
    } catch {
      // Nothing was opened, or it is gone already.
    }
  }
}
