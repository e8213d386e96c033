/**
 * A client of tabgate's own HTTP API, for `tabgate mcp --gateway` and `tabgate call`. It turns the
 * API's `{error: {code, message}}` bodies back into TabgateErrors, so callers see one error model.
 */
import { isErrorCode, TabgateError, type CallResult } from '../protocol/index.js';
import type { AgentCallOptions, AgentPort } from '../gateway/mcp/agent-port.js';
import type { SessionRecord } from '../gateway/service.js';

export interface GatewayClientOptions {
  /** e.g. `http://127.0.0.1:8642` */
  baseUrl: string;
  apiKey: string;
  /** Per request; tool calls wait for the browser, so keep it above the command timeout. */
  timeoutMs?: number;
  /** How often `onToolsChanged` asks the gateway (default 2 s). */
  toolsPollMs?: number;
}

export class GatewayClient implements AgentPort {
  private readonly baseUrl: string;

  constructor(private readonly options: GatewayClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  createSession(input: { title?: string | null; source: string }): Promise<SessionRecord> {
    return this.request<SessionRecord>('POST', '/v1/sessions', { title: input.title ?? null });
  }

  listSessions(): Promise<{ sessions: SessionRecord[] }> {
    return this.request('GET', '/v1/sessions');
  }

  getSession(sessionId: string): Promise<SessionRecord> {
    return this.request('GET', `/v1/sessions/${encodeURIComponent(sessionId)}`);
  }

  async deleteSession(sessionId: string): Promise<void> {
    await this.request('DELETE', `/v1/sessions/${encodeURIComponent(sessionId)}`);
  }

  async toolsFor(sessionId: string): Promise<string[]> {
    const body = await this.request<{ tools: { name: string }[] }>(
      'GET',
      `/v1/tools?session=${encodeURIComponent(sessionId)}`,
    );
    return body.tools.map((tool) => tool.name);
  }

  /**
   * The gateway pushes nothing over this API, so a listener is asked to read the list again every
   * `toolsPollMs` (it compares; an unchanged list costs that one loopback request).
   */
  onToolsChanged(_sessionId: string, listener: () => void): () => void {
    const timer = setInterval(listener, this.options.toolsPollMs ?? 2000);
    timer.unref();
    return () => clearInterval(timer);
  }

  async callTool<N extends string>(
    sessionId: string,
    tool: N,
    args: unknown,
    options: AgentCallOptions = {},
  ): Promise<CallResult<N>> {
    const headers: Record<string, string> = {};
    if (options.toolCallId) headers['x-tool-call-id'] = options.toolCallId;
    // The gateway answers each tool in the catalog's result type.
    const body = await this.request<{ ok: true; result: CallResult<N> }>(
      'POST',
      `/v1/sessions/${encodeURIComponent(sessionId)}/tools/${encodeURIComponent(tool)}`,
      args ?? {},
      headers,
      options.signal,
    );
    return body.result;
  }

  /** Any call of the gateway's HTTP API, for commands beyond sessions and tools (`tabgate pair`). */
  async request<T>(
    method: string,
    path: string,
    body?: unknown,
    extraHeaders: Record<string, string> = {},
    signal?: AbortSignal,
  ): Promise<T> {
    const timeout = AbortSignal.timeout(this.options.timeoutMs ?? 120_000);
    let response: Response;
    try {
      response = await fetch(this.baseUrl + path, {
        method,
        headers: {
          authorization: `Bearer ${this.options.apiKey}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...extraHeaders,
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      throw new TabgateError(
        'backend_unavailable',
        `Cannot reach the tabgate gateway at ${this.baseUrl}: ${error instanceof Error ? error.message : String(error)}. Is \`tabgate serve\` running?`,
      );
    }
    const text = await response.text();
    let parsed: unknown = undefined;
    if (text.length > 0) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
    }
    if (!response.ok) throw toTabgateError(response.status, parsed);
    return parsed as T;
  }
}

function toTabgateError(status: number, body: unknown): TabgateError {
  const error = (
    body as { error?: { code?: unknown; message?: unknown; controller_code?: unknown } } | undefined
  )?.error;
  const message = typeof error?.message === 'string' ? error.message : `The gateway answered HTTP ${status}.`;
  const code = isErrorCode(error?.code) ? error.code : status === 401 ? 'invalid_api_key' : 'internal_error';
  return new TabgateError(code, message, { controller_code: error?.controller_code });
}
