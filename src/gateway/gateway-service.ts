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
  type ToolName,
} from '../protocol/index.js';
import type { AuditLog } from './audit/audit-log.js';
import type { BrowserBackend } from './backends/index.js';
import type { Broker } from './broker/broker.js';
import type { FeatureFlag } from './config/live-flag.js';
import type { Logger } from '../log/logger.js';
import { operatorRequired } from './operator/index.js';
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
    return this.d.sessions.get(caller, sessionId);
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
    try {
      return this.routeCall(caller, sessionId, tool, rawArguments, options);
    } catch (error) {
      return rejection(error);
    }
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
        arguments: rawArguments,
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
      if (decision.kind === 'controller') {
        const unsafe = unsafeControllerArguments(name, rawArguments);
        if (unsafe) throw new TabgateError('controller_unavailable', unsafe);
        const args = parseToolArguments(name, rawArguments) as Record<string, unknown>;
        return this.d.broker.dispatch({
          scope: decision.scope,
          action: name,
          arguments: args,
          toolCallId,
          signal,
        });
      }
      const args = parseToolArguments(name, rawArguments);
      return this.d.backend.call({ sessionId, tool: name, args, toolCallId, signal });
    } catch (error) {
      return rejection(error);
    }
  }
}
