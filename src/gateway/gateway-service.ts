/**
 * The GatewayService behind HTTP and MCP: sessions, and the tool-call pipeline — unknown tool, session
 * lookup, fail-closed route decision, unsafe-argument check (controller route, raw arguments), schema
 * validation, dispatch. Once a controller is chosen its answer is final; no other backend is tried.
 */
import {
  checkNavigationUrl,
  isControllerCapability,
  isToolName,
  parseToolArguments,
  TabgateError,
  UPLOAD_FILES_ARGUMENT,
  TAKEOVER_TOOL,
  TOOLS,
  type ApprovalRecord,
  type CallResult,
  type ScreenshotResult,
  type SecretFill,
  type ToolName,
  type ToolResult,
} from '../protocol/index.js';
import { requestTakeover, type Approvals, type PageReader } from './approvals/index.js';
import type { AuditContext } from './audit/audit-entry.js';
import type { AuditedCall, AuditLog, CallEnding } from './audit/audit-log.js';
import type { BrowserBackend } from './backends/index.js';
import type { LaneState } from './broker/controller-broker.js';
import type { ControllerBroker } from './broker/controller-broker.js';
import { ControllerResults } from './broker/controller-results.js';
import type { ControllerScope, LaneQuery } from './broker/scope.js';
import type { FeatureFlag } from './config/live-flag.js';
import type { Logger } from '../log/logger.js';
import type { SessionActivity } from './activity/session-activity.js';
import { InFlightCalls } from './in-flight-calls.js';
import { operatorRequired } from './operator/index.js';
import { mayReceiveSecrets, type SecretGuard, type VaultSnapshot } from './secrets/index.js';
import type { SiteRules } from '../protocol/index.js';
import { decideRoute, unsafeControllerArguments, type RouteDecision } from './router/route.js';
import type {
  CallSignal,
  Caller,
  CreateSessionInput,
  GatewayService,
  SessionRecord,
  ToolCallRequest,
} from './service.js';
import type { Sessions } from './sessions.js';
import type { SessionChanges } from './session-changes.js';
import { stoppedByOwner } from './stopped-by-owner.js';
import type { SiteBrowser, SitePolicyView } from './sites/site-policies.js';
import { refusalRuleOf } from './sites/refusal-rule.js';
import { readUploadFiles, type UploadSettings } from './user-tab-uploads.js';

export interface GatewayServiceDeps {
  sessions: Sessions;
  broker: ControllerBroker;
  backend: BrowserBackend;
  extensionControl: FeatureFlag;
  log: Logger;
  /** Records controller-routed calls (and every call with `audit.all_backends`). */
  audit?: AuditLog;
  /** The owner's vault: fills `browser_type {secret}` and keeps its values out of all that leaves. */
  secrets?: SecretGuard;
  /** The site rules of a session on the user's tab (docs/safety.md); none judged without them. */
  userTabSites?: (sessionId: string) => SiteRules;
  /** The calls running in each session (Stop and delete end them); a private one by default. */
  inFlight?: InFlightCalls;
  /** Told of every call's start and end (the dashboard's timeline). */
  activity?: SessionActivity;
  /** Approvals of consequential actions (docs/safety.md "Approvals"); none asked for without them. */
  approvals?: Approvals;
  /**
   * The kind of browser a backend (by name) is, for the site mode and approval classes its sessions are
   * held to; `local` without it.
   */
  backendBrowser?: (backendName: string) => 'local' | 'remote';
  /** A session's site policy as it stands, copied into the audit row of each site refusal. */
  sitePolicyOf?: (sessionId: string, browser: SiteBrowser) => SitePolicyView;
  /** Told when a session's controller attaches or is released (its tool list may change). */
  sessionChanges?: SessionChanges;
  /** `browser.upload_roots` and `browser.upload_max_mb`: the files a browser_upload to the user's tab may carry. */
  uploads?: UploadSettings;
}

/** The codes of a site refusal, from the gateway, the engine or (as `controller_code`) the extension. */
const SITE_REFUSALS: ReadonlySet<string> = new Set(['site_not_granted', 'site_blocked', 'domain_changed']);

function isSiteRefusal(error: unknown): error is TabgateError {
  if (!(error instanceof TabgateError)) return false;
  return SITE_REFUSALS.has(error.code) || SITE_REFUSALS.has(String(error.details?.controller_code));
}

/**
 * A call past its tool-name check, with the session it runs in and where it goes: built once, with
 * every field present, so each step of the path reads the same shape.
 */
interface RoutedCall {
  caller: Caller;
  sessionId: string;
  tool: ToolName;
  /** The arguments as the agent sent them. */
  arguments: unknown;
  toolCallId: string | null;
  /** The caller's own; the call runs under the one InFlightCalls gives it (which also follows Stop). */
  signal: CallSignal | undefined;
  onProgress: ((message: string) => void) | undefined;
  session: SessionRecord;
  decision: RouteDecision;
  /** The backend that serves the session, for a call routed to one (after a live switch: its own). */
  backend: string | undefined;
  /** A takeover's record as it last stood, for its audit row (who decided). */
  takeover: { record: ApprovalRecord | null } | undefined;
  /** The call's looks at the vault; none without a vault. */
  vault: CallVault | undefined;
}

/**
 * A call's two looks at the vault, each one `stat` of its file. The checks and the fill use the vault
 * as it stood when the call began; what leaves (the answer, the timeline, an error) is scrubbed against
 * the vault as it stands when it leaves, so a secret stored while the call ran is not in its answer.
 * No look is ever a cached answer of some age: a secret stored a moment ago is in the next call's.
 */
class CallVault {
  private leaving: VaultSnapshot | null = null;

  constructor(
    private readonly guard: SecretGuard,
    readonly atStart: VaultSnapshot,
  ) {}

  /** The vault as the call's outputs leave, looked at once, by the first output that leaves. */
  atEnd(): VaultSnapshot {
    return (this.leaving ??= this.guard.snapshot());
  }
}

/** How a takeover ended, in the words of its audit row. */
const TAKEOVER_OUTCOMES: Readonly<Record<string, string>> = {
  takeover_declined: 'declined',
  takeover_timeout: 'timeout',
};

const laneQuery = (caller: Caller, sessionId: string): LaneQuery => ({
  principalId: caller.principalId,
  profileId: caller.profileId,
  sessionId,
  transportFamily: caller.transportFamily,
});

export class DefaultGatewayService implements GatewayService {
  private readonly inFlight: InFlightCalls;
  private readonly controllerResults: ControllerResults;

  constructor(private readonly d: GatewayServiceDeps) {
    this.inFlight = d.inFlight ?? new InFlightCalls();
    this.controllerResults = new ControllerResults(d.log);
  }

  async createSession(caller: Caller, input: CreateSessionInput): Promise<SessionRecord> {
    return (await this.d.sessions.create(caller, input)).record;
  }

  recreateSession(
    caller: Caller,
    input: CreateSessionInput,
  ): Promise<{ record: SessionRecord; created: boolean }> {
    return this.d.sessions.create(caller, input);
  }

  listSessions(caller: Caller): Promise<SessionRecord[]> {
    return this.d.sessions.list(caller);
  }

  async getSession(caller: Caller, sessionId: string): Promise<SessionRecord> {
    const record = await this.d.sessions.get(caller, sessionId);
    // A session a user's browser serves reports its binding; the backend knows nothing of it.
    const browser = record.binding ? null : (this.d.backend.describeSession?.(sessionId) ?? null);
    return { ...record, browser };
  }

  async deleteSession(caller: Caller, sessionId: string): Promise<void> {
    await this.d.sessions.delete(caller, sessionId);
    this.d.activity?.forget(sessionId);
    this.d.approvals?.forgetSession(sessionId);
    // A user's browser's command ends as the protocol says a cancelled command does; a call on the
    // gateway's own browser with the neutral code.
    this.inFlight.cancel(
      sessionId,
      (route) =>
        new TabgateError(
          route === 'controller' ? 'controller_cancelled' : 'call_cancelled',
          'The session was deleted while this call ran; the call was cancelled.',
        ),
    );
    const detached = this.d.broker.detachSession(sessionId);
    if (detached instanceof Promise) await detached;
    await this.d.backend.closeSession(sessionId);
  }

  async releaseSession(caller: Caller, sessionId: string): Promise<SessionRecord> {
    if (caller.credential !== 'operator') throw operatorRequired();
    const session = await this.d.sessions.require(caller, sessionId);
    if (!session.binding) {
      throw new TabgateError('session_not_bound', "This session was never bound to a user's browser.");
    }
    const release = async () => {
      await this.d.broker.detachSession(sessionId);
      await this.d.sessions.setBinding(sessionId, null);
      this.d.log.info('session released from the user browser by the owner', { session_id: sessionId });
      return this.d.sessions.get(caller, sessionId);
    };
    if (!this.d.audit) return release();
    return this.d.audit.track(
      {
        caller,
        sessionId,
        action: 'session.release',
        arguments: {},
        toolCallId: null,
        backend: 'owner',
        controllerId: session.binding.controller_id,
      },
      release,
    );
  }

  onToolsChanged(sessionId: string, listener: () => void): () => void {
    return this.d.sessionChanges?.on(sessionId, listener) ?? (() => undefined);
  }

  async toolsFor(caller: Caller, sessionId: string): Promise<ToolName[]> {
    const session = await this.d.sessions.require(caller, sessionId);
    const decisions = TOOLS.map((tool) => ({
      name: tool.name,
      decision: this.decide(caller, sessionId, session.binding, tool.name),
    }));
    // Served by the user's browser: exactly what it was granted, and what the gateway answers itself
    // wherever the page is: the takeover (the gateway's pause) and, for the owner's extension, which asks
    // the person in its popup, browser_approval_status (what a call with wait:false left pending).
    const served = decisions.find(({ decision }) => decision.kind === 'controller')?.decision;
    if (served?.kind === 'controller') {
      const gatewayTools = this.d.approvals
        ? [TAKEOVER_TOOL, ...(mayReceiveSecrets(served.scope) ? ['browser_approval_status'] : [])]
        : [];
      return decisions
        .filter(({ name, decision }) => decision.kind === 'controller' || gatewayTools.includes(name))
        .map(({ name }) => name);
    }
    return decisions
      .filter(({ name, decision: { kind } }) =>
        // Its browser is away: what such a browser runs, so the list holds still while it reconnects.
        kind === 'unavailable' ? isControllerCapability(name) : (this.d.backend.supports?.(name) ?? true),
      )
      .map(({ name }) => name);
  }

  private decide(
    caller: Caller,
    sessionId: string,
    binding: SessionRecord['binding'],
    tool: ToolName,
    lane?: LaneState,
  ): RouteDecision {
    return decideRoute({
      tool,
      featureEnabled: this.d.extensionControl.enabled(),
      principalId: caller.principalId,
      transportFamily: caller.transportFamily,
      binding,
      lane: () => lane ?? this.d.broker.laneState(laneQuery(caller, sessionId)),
    });
  }

  stopSession(caller: Caller, sessionId: string): Promise<{ session: SessionRecord; cancelled: number }> {
    return this.ownerAct(caller, sessionId, 'session.stop', async () => {
      const stopping = this.d.sessions.setStopped(sessionId, true);
      // At once, not after the store answers: the calls running now end with the Stop.
      const here = this.inFlight.cancel(sessionId, stoppedByOwner('this call was cancelled'));
      // In a cluster, the session's calls waiting on other gateways end too. Redis failing does not
      // fail the Stop: the stored flag refuses every next call, and those calls end by their deadline.
      const elsewhere = this.d.broker.cancelSession?.(sessionId).catch((error: unknown) => {
        this.d.log.warn('the Stop could not reach calls on other gateways', {
          session_id: sessionId,
          reason: (error as Error).message,
        });
        return 0;
      });
      await stopping;
      const cancelled = here + ((await elsewhere) ?? 0);
      this.d.log.info('session stopped by the owner', { session_id: sessionId, cancelled });
      return { session: await this.d.sessions.get(caller, sessionId), cancelled };
    });
  }

  resumeSession(caller: Caller, sessionId: string): Promise<SessionRecord> {
    return this.ownerAct(caller, sessionId, 'session.resume', async () => {
      // In a cluster the stop marker goes first: should Redis fail, the session stays stopped
      // everywhere, and the owner can resume again.
      await this.d.broker.resumeSession?.(sessionId).catch((error: unknown) => {
        this.d.log.warn('the Resume could not reach the cluster', {
          session_id: sessionId,
          reason: (error as Error).message,
        });
        throw new TabgateError(
          'cluster_unavailable',
          "this gateway cannot reach its cluster's Redis; the session is still stopped",
        );
      });
      await this.d.sessions.setStopped(sessionId, false);
      this.d.log.info('session resumed by the owner', { session_id: sessionId });
      return this.d.sessions.get(caller, sessionId);
    });
  }

  /**
   * The owner's look at a session's page for the dashboard: a viewport screenshot through the browser
   * that serves it — the user's shared tab through its controller, or the session's CDP browser — never
   * another. Null when nothing may be shown: stopped, no reachable controller of a bound session, or no
   * browser opened yet (a screenshot never opens one). Not an agent's call: neither audited nor timed.
   */
  async captureScreen(caller: Caller, sessionId: string, opened: boolean): Promise<ScreenshotResult | null> {
    const session = await this.d.sessions.require(caller, sessionId);
    if (session.stopped_at !== null) return null;
    const decision = this.decide(caller, sessionId, session.binding, 'browser_screenshot');
    if (decision.kind === 'unavailable') return null;
    if (decision.kind === 'controller') {
      const answer = await this.d.broker.dispatch({
        scope: decision.scope,
        action: 'browser_screenshot',
        arguments: {},
        toolCallId: null,
      });
      return this.controllerResults.accept('browser_screenshot', {}, answer);
    }
    if (!opened) return null;
    return this.d.backend.call({
      sessionId,
      tool: 'browser_screenshot',
      args: {},
      toolCallId: null,
    });
  }

  /** An owner-only act on one session, in the audit log like the agent's calls (when there is one). */
  private async ownerAct<T>(
    caller: Caller,
    sessionId: string,
    action: string,
    act: () => Promise<T>,
  ): Promise<T> {
    if (caller.credential !== 'operator') throw operatorRequired();
    const session = await this.d.sessions.require(caller, sessionId);
    if (!this.d.audit) return act();
    return this.d.audit.track(
      {
        caller,
        sessionId,
        action,
        arguments: {},
        toolCallId: null,
        backend: 'owner',
        controllerId: session.binding?.controller_id ?? null,
      },
      act,
    );
  }

  async callTool<N extends string>(request: ToolCallRequest<N>): Promise<CallResult<N>> {
    // First: a vault that cannot be read fails the call before anything is sent (fail closed).
    const vault = this.d.secrets ? new CallVault(this.d.secrets, this.d.secrets.snapshot()) : undefined;
    try {
      const result = (await this.route(request, vault)) as CallResult<N>;
      return vault ? vault.atEnd().scrub(result) : result;
    } catch (error) {
      throw vault ? vault.atEnd().scrubError(error) : error;
    }
  }

  /**
   * Unknown tool, then the session, then where its calls go now; then the call, audited. Each await
   * here is on a path that has to wait (a session not in memory, a cluster's lane, the first call
   * after a live switch): otherwise the command leaves inside audit.track's run(), before the journal
   * is written.
   */
  private async route(request: ToolCallRequest, vault: CallVault | undefined): Promise<ToolResult<ToolName>> {
    const { caller, sessionId, tool } = request;
    if (!isToolName(tool))
      throw new TabgateError('unknown_tool', `No tool named ${JSON.stringify(tool.slice(0, 100))}.`);
    const session =
      this.d.sessions.cached(caller, sessionId) ?? (await this.d.sessions.require(caller, sessionId));
    // Answered by the gateway, which keeps the approvals, wherever the session's calls go.
    if (tool === 'browser_approval_status') return this.approvalStatus(sessionId, request.arguments);
    // A cluster node reads the lane from Redis first; the embedded broker answers inside decide().
    const lane =
      this.d.broker.lookupLane && this.d.extensionControl.enabled()
        ? await this.d.broker.lookupLane(laneQuery(caller, sessionId))
        : undefined;
    // A takeover pauses the browser that serves the page, which reads it before and after.
    const routedAs = tool === TAKEOVER_TOOL ? 'browser_tabs' : tool;
    const decision = this.decide(caller, sessionId, session.binding, routedAs, lane);
    const named = decision.kind === 'backend' ? this.backendOf(sessionId) : undefined;
    return await this.audited({
      caller,
      sessionId,
      tool,
      arguments: request.arguments,
      toolCallId: request.toolCallId ?? null,
      signal: request.signal,
      onProgress: request.onProgress,
      session,
      decision,
      backend: typeof named === 'object' ? await named : named,
      takeover: tool === TAKEOVER_TOOL ? { record: null } : undefined,
      vault,
    });
  }

  /**
   * The backend a session's calls run on; for its first call after a live switch, the one chosen for it
   * now (a promise only then), so that call is logged and gated as the browser that serves it.
   */
  private backendOf(sessionId: string): string | Promise<string> {
    const backend = this.d.backend;
    const known = backend.describeSession?.(sessionId)?.backend;
    if (known !== undefined) return known;
    if (!backend.prepare) return backend.name;
    // A choice that fails now fails again in the call, inside its audit row.
    return backend.prepare(sessionId).catch(() => backend.name);
  }

  private browserKindOf(call: RoutedCall): 'local' | 'remote' {
    return this.d.backendBrowser?.(call.backend ?? this.d.backend.name) ?? 'local';
  }

  /** Controller-routed calls (and every call with `audit.all_backends`) go into the audit log. */
  private audited(call: RoutedCall): Promise<ToolResult<ToolName>> {
    const audit = this.d.audit;
    if (!audit) return this.observed(call);
    // A takeover is always in the log: one row, with how it ended and who decided.
    if (call.decision.kind !== 'backend' || audit.allBackends || call.takeover)
      return audit.track(this.auditRow(call), () => this.observed(call));
    return this.auditedIfRefused(audit, call);
  }

  /**
   * A site refusal is logged on every backend, with the policy it was judged by (docs/safety.md), when
   * it is answered; the other calls of a backend are logged only with audit.all_backends.
   */
  private async auditedIfRefused(audit: AuditLog, call: RoutedCall): Promise<ToolResult<ToolName>> {
    try {
      return await this.observed(call);
    } catch (error) {
      if (!isSiteRefusal(error)) throw error;
      return audit.track(this.auditRow(call), () => Promise.reject(error));
    }
  }

  private auditRow(call: RoutedCall): AuditedCall {
    return {
      caller: call.caller,
      sessionId: call.sessionId,
      action: call.tool,
      arguments: call.vault ? call.vault.atStart.scrub(call.arguments) : call.arguments,
      toolCallId: call.toolCallId,
      // The session's own browser: after a live switch an open session keeps the one it opened on.
      backend: call.decision.kind === 'backend' ? (call.backend ?? this.d.backend.name) : 'controller',
      controllerId: call.decision.kind === 'controller' ? call.decision.scope.controller_id : null,
      contextOf: this.auditContextOf(call),
    };
  }

  /**
   * What a call's audit row carries besides the call: the site policy a refusal was judged by, and the
   * provider's reference for the session the call opened (its creation row).
   */
  private auditContextOf(call: RoutedCall): (ending: CallEnding) => AuditContext | null {
    const describe = this.d.backend.describeSession?.bind(this.d.backend);
    const opens = call.decision.kind === 'backend' && describe !== undefined && !describe(call.sessionId);
    return (ending) => {
      const context: Record<string, unknown> = {};
      const rule = ending.ok ? undefined : refusalRuleOf(ending.error);
      if (rule) context.rule = rule;
      if (!ending.ok && isSiteRefusal(ending.error) && this.d.sitePolicyOf) {
        const browser = call.decision.kind === 'controller' || call.session.binding ? 'user_tab' : null;
        context.site_policy = this.d.sitePolicyOf(call.sessionId, browser ?? this.browserKindOf(call));
      }
      const record = call.takeover?.record;
      if (record) {
        const code = ending.ok ? null : ending.error instanceof TabgateError ? ending.error.code : 'error';
        context.takeover = {
          takeover_id: record.approval_id,
          outcome: code === null ? 'done' : (TAKEOVER_OUTCOMES[code] ?? code),
          decided_by: record.decided_by,
          channel: record.channel,
        };
      }
      const externalCallId = opens ? describe?.(call.sessionId)?.external_call_id : undefined;
      if (externalCallId) context.external_call_id = externalCallId;
      return Object.keys(context).length > 0 ? context : null;
    };
  }

  /** The call on the dashboard's timeline: begun, and ended with the page it left or its error. */
  private async observed(call: RoutedCall): Promise<ToolResult<ToolName>> {
    const running = this.inFlightCall(call);
    const end = this.beginOnTimeline(call);
    try {
      const result = await running;
      // Never a vault value the page echoed.
      if (end) end(null, call.vault ? call.vault.atEnd().scrub(result) : result);
      return result;
    } catch (error) {
      end?.(error);
      throw error;
    }
  }

  /**
   * The call's entry on the timeline, made once the call has started: a controller's command has left by
   * then, and the entry (a date, the redacted arguments, the dashboard told) is made while it travels.
   * With the broker's bookkeeping also after the send (Broker.awaitAnswer) and each session's lookup key
   * kept (sessionLookupKey), bench:controller's request read → command sent fell from a median 49.6 to
   * 35.2 µs (BENCH_PHASES=1, 2-core host under load; the floor's is 3–5 µs). Its arguments are as the
   * audit row keeps them: a URL the agent sent with a vault value in it is refused, but the timeline
   * shows the call.
   */
  private beginOnTimeline(call: RoutedCall): ((error: unknown, result?: unknown) => void) | undefined {
    return this.d.activity?.begin(
      call.sessionId,
      call.tool,
      call.vault ? call.vault.atStart.scrub(call.arguments) : call.arguments,
    );
  }

  /** One of the session's running calls, which Stop and delete end; a stopped session runs none. */
  private async inFlightCall(call: RoutedCall): Promise<ToolResult<ToolName>> {
    // Refused here, inside the audit, so the log shows each refusal.
    if (call.session.stopped_at !== null) throw stoppedByOwner(`${call.tool} was not run`);
    // The person is using the page: the agent neither acts on it nor reads what they type.
    this.d.approvals?.takeovers.refuseWhilePaused(call.sessionId, call.tool);
    return await this.inFlight.run(
      call.sessionId,
      call.signal,
      (signal) => this.dispatch(call, signal),
      call.decision.kind === 'controller' ? 'controller' : 'backend',
    );
  }

  /**
   * The last refusals, then the call goes to the user's browser or to the session's backend, under
   * `signal`: the caller's abort or the owner's Stop. Run only by InFlightCalls.run, which makes a
   * refusal thrown here the call's rejection.
   */
  private dispatch(call: RoutedCall, signal: CallSignal): Promise<ToolResult<ToolName>> {
    const { decision, tool } = call;
    if (decision.kind === 'unavailable') throw new TabgateError(decision.code, decision.message);
    if (tool === TAKEOVER_TOOL) return this.takeover(call, signal);
    call.vault?.atStart.checkArguments(tool, call.arguments);
    if (decision.kind === 'controller') return this.dispatchToController(call, decision.scope, signal);
    const { wait, ...args } = parseToolArguments(tool, call.arguments) as Record<string, unknown>;
    const secret = this.secretFor(call, args);
    const approvals = this.d.approvals?.gateFor(
      {
        sessionId: call.sessionId,
        tool,
        args,
        wait: wait !== false,
        signal,
        onProgress: call.onProgress,
      },
      this.browserKindOf(call),
    );
    return this.d.backend.call({
      sessionId: call.sessionId,
      tool,
      args,
      toolCallId: call.toolCallId,
      signal,
      ...(secret ? { secret } : {}),
      ...(approvals ? { approvals } : {}),
    });
  }

  private async dispatchToController(
    call: RoutedCall,
    scope: ControllerScope,
    signal: CallSignal,
  ): Promise<ToolResult<ToolName>> {
    const { tool } = call;
    const unsafe = unsafeControllerArguments(tool, call.arguments);
    if (unsafe) throw new TabgateError('controller_unavailable', unsafe);
    this.refuseBlockedSite(call.sessionId, tool, call.arguments);
    const { wait, ...args } = parseToolArguments(tool, call.arguments) as Record<string, unknown>;
    const secret = this.secretFor(call, args);
    if (secret && !mayReceiveSecrets(scope)) {
      throw new TabgateError(
        'controller_unavailable',
        "vault secrets go only to a browser the owner paired (the tabgate extension); this session's controller was registered otherwise, so nothing was sent",
      );
    }
    // Files go where the person sees them: a controller the agent's key registered would hand the
    // bytes of the owner's upload folders to whatever it is, unasked.
    if (tool === 'browser_upload' && !mayReceiveSecrets(scope)) {
      throw new TabgateError(
        'controller_unavailable',
        "files are uploaded only through a browser the owner paired (the tabgate extension), which asks the person first; this session's controller was registered otherwise, so nothing was read or sent",
      );
    }
    // After the refusals that hold whatever the classes: what the owner's paired extension cannot ask
    // the person about, and everything a controller registered otherwise would need, is refused here.
    const asksInBrowser = mayReceiveSecrets(scope);
    this.d.approvals?.checkUserTab(tool, args, asksInBrowser);
    const approvalWindowMs = asksInBrowser ? this.d.approvals?.userTabWindowMs(tool) : undefined;
    // Only the owner's extension hears `wait: false` (it then leaves the approval pending and answers
    // approval_required); a protocol v1 controller gets the arguments of v1, byte for byte.
    const sent = asksInBrowser && wait === false ? { ...args, wait: false } : args;
    const answer = await this.d.broker.dispatch({
      scope,
      action: tool,
      // Awaited only for an upload, which reads files: any other command leaves in this turn.
      arguments: tool === 'browser_upload' ? await this.withUploadFiles(sent) : sent,
      toolCallId: call.toolCallId,
      signal,
      ...(secret ? { secret } : {}),
      ...(approvalWindowMs ? { approvalWindowMs } : {}),
    });
    return this.controllerResults.accept(tool, args, answer);
  }

  /**
   * A browser_upload to the user's tab carries the files' bytes (the browser cannot read this disk),
   * read only after the checks every backend makes; the audit row and the timeline keep the paths.
   */
  private async withUploadFiles(args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const { paths } = args as { paths: string[] };
    const files = await readUploadFiles(paths, this.d.uploads ?? { roots: [], maxBytes: 0 });
    return { ...args, [UPLOAD_FILES_ARGUMENT]: files };
  }

  /** `browser_request_takeover`: the session waits while the person does the step themselves. */
  private takeover(call: RoutedCall, signal: CallSignal): Promise<ToolResult<'browser_request_takeover'>> {
    const { reason, timeout_s } = parseToolArguments(TAKEOVER_TOOL, call.arguments);
    if (!this.d.approvals)
      throw new TabgateError('takeover_unavailable', 'This gateway has no channel to ask the person.');
    const { decision, sessionId } = call;
    const describe = this.d.backend.describeSession?.bind(this.d.backend);
    if (decision.kind === 'backend' && describe && !describe(sessionId))
      throw new TabgateError(
        'takeover_unavailable',
        'This session has no page yet, so there is nothing for the person to do a step on; browser_navigate first.',
      );
    const readPage: PageReader = async () => {
      try {
        const read =
          decision.kind === 'controller'
            ? this.controllerResults.accept(
                'browser_tabs',
                {},
                await this.d.broker.dispatch({
                  scope: decision.scope,
                  action: 'browser_tabs',
                  arguments: {},
                  toolCallId: null,
                  signal,
                }),
              )
            : await this.d.backend.call({
                sessionId,
                tool: 'browser_tabs',
                args: {},
                toolCallId: null,
                signal,
              });
        const active = read.tabs.find((tab) => tab.active) ?? read.tabs[0];
        return active ? { url: active.url, title: active.title } : null;
      } catch {
        // Where the page stands helps; a takeover the person finished is done without it.
        return null;
      }
    };
    const held = call.takeover;
    return requestTakeover(
      this.d.approvals.takeovers,
      {
        sessionId,
        reason,
        ...(timeout_s !== undefined ? { timeoutS: timeout_s } : {}),
        signal,
        ...(call.onProgress ? { onProgress: call.onProgress } : {}),
      },
      readPage,
      (record) => {
        if (held) held.record = record;
      },
    );
  }

  /** `browser_approval_status`: an approval of this session, as its channel shows it. */
  private approvalStatus(sessionId: string, raw: unknown): ToolResult<'browser_approval_status'> {
    const { approval_id } = parseToolArguments('browser_approval_status', raw);
    if (!this.d.approvals)
      throw new TabgateError('approval_not_found', 'This gateway asks for no approvals.');
    return this.d.approvals.status(sessionId, approval_id);
  }

  /** The fill a `browser_type {secret}` names; `unknown_secret` when the vault has no such entry. */
  private secretFor(call: RoutedCall, args: object): SecretFill | undefined {
    const name = (args as { secret?: unknown }).secret;
    if (typeof name !== 'string') return undefined;
    if (!call.vault) {
      throw new TabgateError('unknown_secret', 'This gateway has no vault; nothing was typed.');
    }
    return call.vault.atStart.fillFor(name);
  }

  /**
   * The gateway's half of the site rules on the user's tab, before anything reaches the controller: a
   * denied or high-risk-category site (or a URL that names no site) is refused here. Whether a site is
   * the shared origin or granted there is the extension's to judge: only it knows what the user shared.
   */
  private refuseBlockedSite(sessionId: string, name: string, raw: unknown): void {
    if (name !== 'browser_navigate' || !this.d.userTabSites) return;
    if (typeof raw !== 'object' || raw === null) return;
    const url = (raw as { url?: unknown }).url;
    // A URL no browser may open at all is refused as such (`invalid_url`, `metadata_url_blocked`) by
    // the checks every backend makes; the site rules judge only what could be opened.
    if (typeof url !== 'string' || checkNavigationUrl(url).kind !== 'ok' || url === 'about:blank') return;
    const decision = this.d.userTabSites(sessionId).decideUrl(url);
    if (!decision.allowed && decision.code === 'site_blocked')
      throw new TabgateError('site_blocked', `Refused: ${decision.reason}.`, { rule: decision.rule });
  }
}
