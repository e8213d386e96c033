/**
 * What an MCP connection needs from tabgate, whether the gateway runs in this process or is reached over
 * HTTP: open, find and close a session, and call a tool in it. Errors are TabgateErrors either way.
 */
import type { CallResult } from '../../protocol/index.js';
import type { Caller, GatewayService, SessionRecord } from '../service.js';

export interface AgentCallOptions {
  toolCallId?: string | null;
  signal?: AbortSignal;
  /** Told while the call waits for an approval (MCP progress notifications). */
  onProgress?: (message: string) => void;
}

export interface AgentPort {
  createSession(input: { title?: string | null; source: string }): Promise<SessionRecord>;
  getSession(sessionId: string): Promise<SessionRecord>;
  deleteSession(sessionId: string): Promise<void>;
  callTool<N extends string>(
    sessionId: string,
    tool: N,
    args: unknown,
    options?: AgentCallOptions,
  ): Promise<CallResult<N>>;
  /** The tools the session can run where its calls go now (GET /v1/tools?session=). */
  toolsFor(sessionId: string): Promise<string[]>;
  /** Tells of changes to the session's tools as they happen; absent over HTTP (the next call tells). */
  onToolsChanged?(sessionId: string, listener: () => void): () => void;
}

/** The port over the in-process service, acting as one authenticated caller. */
export function inProcessAgentPort(service: GatewayService, caller: Caller): AgentPort {
  return {
    createSession: async (input) => service.createSession(caller, input),
    getSession: async (sessionId) => service.getSession(caller, sessionId),
    deleteSession: (sessionId) => service.deleteSession(caller, sessionId),
    callTool: (sessionId, tool, args, options) =>
      service.callTool({ caller, sessionId, tool, arguments: args, ...options }),
    toolsFor: async (sessionId) => service.toolsFor(caller, sessionId),
    ...(service.onToolsChanged
      ? { onToolsChanged: (sessionId, listener) => service.onToolsChanged!(sessionId, listener) }
      : {}),
  };
}
