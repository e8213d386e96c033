/**
 * What agents can do, independent of how they reach tabgate. The HTTP routes and the MCP transports are
 * thin renderers over this one interface; neither validates, routes or stores anything itself.
 */
import type { CallResult, ToolName, TransportFamily } from '../protocol/index.js';
import type { SessionBrowserInfo } from './backends/backend.js';
import type { SessionBinding } from './session-binding.js';
import type { CallSignal } from './call-signal.js';

/** Who is calling, derived by the gateway from the credential and the peer, never from a client field. */
export interface Caller {
  principalId: string;
  /** The profile the principal acts in (`default` for the API key). */
  profileId: string;
  /** loopback peer → `local-api`, else `remote-api`. */
  transportFamily: TransportFamily;
  /**
   * The API key may do everything an agent may; a pairing token may only act as a controller; the
   * operator credential (the owner's CLI or signed-in browser) reaches the owner-only routes.
   */
  credential: 'api_key' | 'pairing_token' | 'operator';
  /** The pairing grant behind a pairing token, so revoking it can close what it opened. */
  credentialId?: string;
}

export interface SessionRecord {
  session_id: string;
  title: string | null;
  /** ISO 8601. */
  created_at: string;
  /** Who created it (`api`, `mcp`, or the reference client's `source`). */
  source: string;
  /** Null until a user's browser serves the session; from then on its calls never go elsewhere. */
  binding: SessionBinding | null;
  /** `GET /v1/sessions/{id}` only: the browser serving the session (null until its first call). */
  browser?: SessionBrowserInfo | null;
  /** ISO 8601: when the owner pressed Stop; null while the session may run calls. */
  stopped_at: string | null;
}

export interface CreateSessionInput {
  title?: string | null;
  /** Only `POST /api/sessions` (reference clients recreating their session) chooses the id. */
  id?: string;
  source?: string;
}

// The backends and the broker take it from its own module, so none of them imports this one.
export type { CallSignal } from './call-signal.js';

/** One agent's tool call, as a transport hands it over: nothing in it is checked yet but the caller. */
export interface ToolCallRequest<N extends string = string> {
  caller: Caller;
  sessionId: string;
  tool: N;
  /** The arguments as the agent sent them. */
  arguments: unknown;
  toolCallId?: string | null;
  signal?: CallSignal;
  /** Told while the call waits on something slow (an approval): MCP progress notifications. */
  onProgress?: (message: string) => void;
}

export interface GatewayService {
  createSession(caller: Caller, input: CreateSessionInput): Promise<SessionRecord>;
  /**
   * A reference client recreating its session by id (`POST /api/sessions`): the caller's own session of
   * that id is kept as it is (`created: false`); another principal's id is refused.
   */
  recreateSession(
    caller: Caller,
    input: CreateSessionInput,
  ): Promise<{ record: SessionRecord; created: boolean }>;
  listSessions(caller: Caller): Promise<SessionRecord[]>;
  /** Throws `session_not_found`. */
  getSession(caller: Caller, sessionId: string): Promise<SessionRecord>;
  /** Closes the session's browser and forgets it. Throws `session_not_found`. */
  deleteSession(caller: Caller, sessionId: string): Promise<void>;
  /**
   * The owner's explicit, audited act that unbinds a session from the user's browser it was bound to,
   * so its calls may use the default backend again. Throws `session_not_found`, `session_not_bound`.
   */
  releaseSession(caller: Caller, sessionId: string): Promise<SessionRecord>;
  /**
   * The tools this session can run where its calls go now: the negotiated capabilities of the user's
   * browser that serves it, or what its backend supports. Throws `session_not_found`.
   */
  toolsFor(caller: Caller, sessionId: string): Promise<ToolName[]>;
  /**
   * Calls `listener` whenever the session's tools may have changed (a tab shared, a controller back,
   * sharing stopped) on this gateway; returns what stops it.
   */
  onToolsChanged?(sessionId: string, listener: () => void): () => void;
  /**
   * The owner's Stop: the session's in-flight calls end at once with `session_stopped_by_owner`, and
   * every later call is refused the same way until `resumeSession`. Operator credential only; audited.
   */
  stopSession(caller: Caller, sessionId: string): Promise<{ session: SessionRecord; cancelled: number }>;
  /** The owner lets a stopped session run calls again. Operator credential only; audited. */
  resumeSession(caller: Caller, sessionId: string): Promise<SessionRecord>;
  /**
   * Validates and routes one tool call (fail-closed), returning the tool's result or throwing a
   * TabgateError (`unknown_tool`, `session_not_found`, `invalid_arguments`, `controller_*`, …).
   */
  callTool<N extends string>(request: ToolCallRequest<N>): Promise<CallResult<N>>;
}
