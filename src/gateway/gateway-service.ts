/**
 * The GatewayService behind HTTP and MCP: sessions, and the tool-call pipeline — unknown tool, session
 * lookup, fail-closed route decision, unsafe-argument check (controller route, raw arguments), schema
 * validation, dispatch. Once a controller is chosen its answer is final; no other backend is tried.
 */
import {
  getTool,
  isControllerCapability,
  parseToolArguments,
  TabgateError,
  TOOLS,
  type SecretFill,
  type ToolName,
} from '../protocol/index.js';
import type { AuditLog } from './audit/audit-log.js';
import type { BrowserBackend } from './backends/index.js';
import type { Broker } from './broker/broker.js';
import type { FeatureFlag } from './config/live-flag.js';
import type { Logger } from '../log/logger.js';
import { operatorRequired } from './operator/index.js';
import { mayReceiveSecrets, type SecretGuard } from './secrets/index.js';
import type { SiteRules } from '../protocol/index.js';
import { decideRoute, unsafeControllerArguments, type RouteDecision } from './router/route.js';
import type {
  CallSignal,
  CallToolOptions,
  Caller,
  CreateSessionInput,
  GatewayService,
  SessionRecord,
} from './service.js';
import type { Sessions } from './sessions.js';

export interface GatewayServiceDeps {
  sessions: Sessions;
  broker: Broker;
  backend: BrowserBackend;
  extensionControl: FeatureFlag;
  log: Logger;
  /** Records controller-routed calls (and every call with `audit.all_backends`). */
  audit?: AuditLog;
  /** The owner's vault: fills `browser_type {secret}` and keeps its values out of all that leaves. */
  secrets?: SecretGuard;
  /** The site rules of a session on the user's tab (docs/safety.md); none judged without them. */
  userTabSites?: (sessionId: string) => SiteRules;
}

/** A refusal thrown before anything was sent, as the rejected promise the caller awaits. */
const rejection = (error: unknown): Promise<never> =>
  Promise.reject(error instanceof Error ? error : new Error(String(error)));

export class DefaultGatewayService implements GatewayService {
  constructor(private readonly d: GatewayServiceDeps) {}

  createSession(caller: Caller, input: CreateSessionInput): SessionRecord {
    return this.d.sessions.create(caller, input).record;
  }

  listSessions(caller: Caller): SessionRecord[] {
    return this.d.sessions.list(caller);
  }

  getSession(caller: Caller, sessionId: string): SessionRecord {
    const record = this.d.sessions.get(caller, sessionId);
    // A session a user's browser serves reports its binding; the backend knows nothing of it.
    const browser = record.binding ? null : (this.d.backend.describeSession?.(sessionId) ?? null);
    return { ...record, browser };
  }

  async deleteSession(caller: Caller, sessionId: string): Promise<void> {
    this.d.sessions.delete(caller, sessionId);
    this.d.broker.detachSession(sessionId);
    await this.d.backend.closeSession(sessionId);
  }

  async releaseSession(caller: Caller, sessionId: string): Promise<SessionRecord> {
    if (caller.credential !== 'operator') throw operatorRequired();
    const session = this.d.sessions.require(caller, sessionId);
    if (!session.binding) {
      throw new TabgateError('session_not_bound', "This session was never bound to a user's browser.");
    }
    const release = () => {
      this.d.broker.detachSession(sessionId);
      this.d.sessions.setBinding(sessionId, null);
      this.d.log.info('session released from the user browser by the owner', { session_id: sessionId });
      return Promise.resolve(this.d.sessions.get(caller, sessionId));
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

  toolsFor(caller: Caller, sessionId: string): ToolName[] {
    const session = this.d.sessions.require(caller, sessionId);
    const decisions = TOOLS.map((tool) => ({
      name: tool.name,
      kind: this.decide(caller, sessionId, session.binding, tool.name).kind,
    }));
    // Served by the user's browser: exactly what it was granted.
    if (decisions.some((decision) => decision.kind === 'controller'))
      return decisions.filter((decision) => decision.kind === 'controller').map(({ name }) => name);
    return decisions
      .filter(({ name, kind }) =>
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
  ): RouteDecision {
    return decideRoute({
      tool,
      featureEnabled: this.d.extensionControl.enabled(),
      principalId: caller.principalId,
      transportFamily: caller.transportFamily,
      binding,
      lane: () =>
        this.d.broker.laneState({
          principalId: caller.principalId,
          profileId: caller.profileId,
          sessionId,
          transportFamily: caller.transportFamily,
        }),
    });
  }

  /**
   * Not `async`: the answer's promise (the audit's, or the dispatch's) goes back as it is, so no
   * microtask of this method's own lies between the controller's result and the reply; a refusal
   * before dispatch still comes back as a rejected promise.
   */
  callTool(
    caller: Caller,
    sessionId: string,
    tool: string,
    rawArguments: unknown,
    options: CallToolOptions = {},
  ): Promise<unknown> {
    const secrets = this.d.secrets;
    let answer: Promise<unknown>;
    let scrubbing = false;
    try {
      // First: a vault that cannot be read fails the call before anything is sent (fail closed).
      scrubbing = secrets?.active() ?? false;
      answer = this.routeCall(caller, sessionId, tool, rawArguments, options);
    } catch (error) {
      answer = rejection(error);
    }
    if (!scrubbing || !secrets) return answer;
    return answer.then(
      (result) => secrets.scrub(result),
      (error: unknown) => rejection(secrets.scrubError(error)),
    );
  }

  private routeCall(
    caller: Caller,
    sessionId: string,
    tool: string,
    rawArguments: unknown,
    options: CallToolOptions,
  ): Promise<unknown> {
    if (!getTool(tool))
      throw new TabgateError('unknown_tool', `No tool named ${JSON.stringify(tool.slice(0, 100))}.`);
    const name = tool as ToolName;
    const session = this.d.sessions.require(caller, sessionId);
    const toolCallId = options.toolCallId ?? null;
    const decision = this.decide(caller, sessionId, session.binding, name);
    const run = () => this.run(decision, caller, sessionId, name, rawArguments, toolCallId, options.signal);
    const audit = this.d.audit;
    if (!audit || (decision.kind === 'backend' && !audit.allBackends)) return run();
    return audit.track(
      {
        caller,
        sessionId,
        action: name,
        arguments: this.d.secrets ? this.d.secrets.scrub(rawArguments) : rawArguments,
        toolCallId,
        backend: decision.kind === 'backend' ? this.d.backend.name : 'controller',
        controllerId: decision.kind === 'controller' ? decision.scope.controller_id : null,
      },
      run,
    );
  }

  /** Not `async`, like callTool; a refusal before dispatch comes back as a rejected promise. */
  private run(
    decision: RouteDecision,
    caller: Caller,
    sessionId: string,
    name: ToolName,
    rawArguments: unknown,
    toolCallId: string | null,
    signal: CallSignal | undefined,
  ): Promise<unknown> {
    try {
      if (decision.kind === 'unavailable') throw new TabgateError(decision.code, decision.message);
      this.d.secrets?.checkArguments(name, rawArguments);
      if (decision.kind === 'controller') {
        const unsafe = unsafeControllerArguments(name, rawArguments);
        if (unsafe) throw new TabgateError('controller_unavailable', unsafe);
        this.refuseBlockedSite(sessionId, name, rawArguments);
        const args = parseToolArguments(name, rawArguments) as Record<string, unknown>;
        const secret = this.secretFor(args);
        if (secret && !mayReceiveSecrets(decision.scope)) {
          throw new TabgateError(
            'controller_unavailable',
            "vault secrets go only to a browser the owner paired (the tabgate extension); this session's controller was registered otherwise, so nothing was sent",
          );
        }
        return this.d.broker.dispatch({
          scope: decision.scope,
          action: name,
          arguments: args,
          toolCallId,
          signal,
          ...(secret ? { secret } : {}),
        });
      }
      const args = parseToolArguments(name, rawArguments);
      const secret = this.secretFor(args);
      return this.d.backend.call({
        sessionId,
        tool: name,
        args,
        toolCallId,
        signal,
        ...(secret ? { secret } : {}),
      });
    } catch (error) {
      return rejection(error);
    }
  }

  /** The fill a `browser_type {secret}` names; `unknown_secret` when the vault has no such entry. */
  private secretFor(args: object): SecretFill | undefined {
    const name = (args as { secret?: unknown }).secret;
    if (typeof name !== 'string') return undefined;
    if (!this.d.secrets) {
      throw new TabgateError('unknown_secret', 'This gateway has no vault; nothing was typed.');
    }
    return this.d.secrets.fillFor(name);
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
    if (typeof url !== 'string' || url === 'about:blank') return;
    const decision = this.d.userTabSites(sessionId).decideUrl(url);
    if (!decision.allowed && decision.code === 'site_blocked')
      throw new TabgateError('site_blocked', `Refused: ${decision.reason}.`);
  }
}
