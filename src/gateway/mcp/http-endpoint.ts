/**
 * MCP over streamable HTTP at `/mcp` (the MCP specification's current transport, through the official
 * SDK). The gateway's own guards (Host, Origin, body limit, bearer key) run before `handle`; each MCP
 * session is bound to a tabgate session opened at initialize and closed with it (DELETE, idle expiry,
 * shutdown). Only the caller that opened an MCP session may use it.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '../../log/logger.js';
import type { Caller, GatewayService } from '../service.js';
import { inProcessAgentPort } from './agent-port.js';

/**
 * The MCP SDK and the server built on it, loaded when the first MCP client initializes (a few hundred
 * ms, once): some 120 modules (the SDK, ajv, zod-to-json-schema) that a gateway whose agents use the
 * HTTP API or the extension never needs, and that every start would otherwise pay for.
 */
async function importSdk() {
  const [transport, types, server] = await Promise.all([
    import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
    import('@modelcontextprotocol/sdk/types.js'),
    import('./mcp-server.js'),
  ]);
  return {
    StreamableHTTPServerTransport: transport.StreamableHTTPServerTransport,
    isInitializeRequest: types.isInitializeRequest,
    createMcpServer: server.createMcpServer,
  };
}
let sdk: ReturnType<typeof importSdk> | undefined;
const loadSdk = () => (sdk ??= importSdk());

interface McpHttpSession {
  transport: StreamableHTTPServerTransport;
  tabgateSessionId: string;
  principalId: string;
  lastSeen: number;
}

export interface McpHttpEndpointOptions {
  service: GatewayService;
  log: Logger;
  /** An MCP session unused this long is closed with its tabgate session. */
  idleTimeoutMs?: number;
  now?: () => number;
}

export const MCP_PATH = '/mcp';

export class McpHttpEndpoint {
  private readonly sessions = new Map<string, McpHttpSession>();
  private readonly sweeper: NodeJS.Timeout;
  private readonly idleTimeoutMs: number;
  private readonly now: () => number;

  constructor(private readonly options: McpHttpEndpointOptions) {
    this.idleTimeoutMs = options.idleTimeoutMs ?? 30 * 60_000;
    this.now = options.now ?? Date.now;
    this.sweeper = setInterval(() => void this.sweep(), Math.min(60_000, this.idleTimeoutMs)).unref();
  }

  get openSessions(): number {
    return this.sessions.size;
  }

  /** Handles one request to `/mcp`; `body` is the parsed JSON body of a POST (the gateway reads it). */
  async handle(req: IncomingMessage, res: ServerResponse, caller: Caller, body: unknown): Promise<void> {
    const header = req.headers['mcp-session-id'];
    const mcpSessionId = Array.isArray(header) ? header[0] : header;
    if (mcpSessionId) {
      const session = this.sessions.get(mcpSessionId);
      if (!session || session.principalId !== caller.principalId) {
        return sendJsonRpcError(res, 404, -32001, 'Unknown or expired MCP session; initialize a new one.');
      }
      session.lastSeen = this.now();
      return session.transport.handleRequest(req, res, body);
    }
    const { isInitializeRequest } = await loadSdk();
    if (req.method !== 'POST' || !isInitializeRequest(body)) {
      return sendJsonRpcError(
        res,
        400,
        -32000,
        'Send an initialize request first (no Mcp-Session-Id header).',
      );
    }
    const { transport, release } = await this.open(caller);
    await transport.handleRequest(req, res, body);
    // An initialize the SDK refused leaves no MCP session behind, so its tabgate session must go too.
    if (!transport.sessionId) release();
  }

  private async open(
    caller: Caller,
  ): Promise<{ transport: StreamableHTTPServerTransport; release: () => void }> {
    const { service, log } = this.options;
    const { StreamableHTTPServerTransport, createMcpServer } = await loadSdk();
    const record = await service.createSession(caller, { title: 'MCP (streamable HTTP)', source: 'mcp' });
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, {
          transport,
          tabgateSessionId: record.session_id,
          principalId: caller.principalId,
          lastSeen: this.now(),
        });
        log.info('mcp http session opened', { session: record.session_id });
      },
    });
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      const id = transport.sessionId;
      if (id) this.sessions.delete(id);
      void service.deleteSession(caller, record.session_id).catch((error: unknown) => {
        log.warn('mcp http session close failed', { session: record.session_id, error: String(error) });
      });
      log.info('mcp http session closed', { session: record.session_id });
    };
    transport.onclose = release;
    const server = createMcpServer(inProcessAgentPort(service, caller), {
      sessionId: async () => record.session_id,
    });
    void server.connect(transport);
    return { transport, release };
  }

  private async sweep(): Promise<void> {
    const cutoff = this.now() - this.idleTimeoutMs;
    for (const session of [...this.sessions.values()]) {
      if (session.lastSeen < cutoff) await session.transport.close().catch(() => undefined);
    }
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((s) => s.transport.close().catch(() => undefined)));
    this.sessions.clear();
  }
}

function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
}
