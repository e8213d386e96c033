/**
 * MCP over stdio: one process, one MCP connection, one tabgate session. The session is created at start
 * (or joined with --session) and, when we created it, closed when the client goes away — stdin ends or
 * the process is signalled — so no browser context outlives its client.
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Logger } from '../../log/logger.js';
import type { AgentPort } from './agent-port.js';
import { createMcpServer } from './mcp-server.js';
import { answeringMalformedLines } from './stdio-lines.js';

export interface StdioMcpOptions {
  port: AgentPort;
  /** Join this existing session instead of opening one; it is then left open at exit. */
  joinSessionId?: string;
  title?: string;
  log: Logger;
  stdin?: Readable;
  stdout?: Writable;
}

export interface StdioMcpHandle {
  sessionId: string;
  /** Resolves once the client has gone and the session is closed. */
  closed: Promise<void>;
  close(): Promise<void>;
}

export async function serveMcpOverStdio(options: StdioMcpOptions): Promise<StdioMcpHandle> {
  const { port, log } = options;
  const stdin = options.stdin ?? process.stdin;
  const session = options.joinSessionId
    ? await port.getSession(options.joinSessionId)
    : await port.createSession({ title: options.title ?? 'MCP (stdio)', source: 'mcp' });
  const ownsSession = !options.joinSessionId;
  log.info('mcp stdio session ready', { session: session.session_id, joined: !ownsSession });

  const server = createMcpServer(port, { sessionId: async () => session.session_id });
  const stdout = options.stdout ?? process.stdout;
  // A line the SDK cannot read is answered, not dropped (stdio-lines.ts).
  const transport = new StdioServerTransport(stdin.pipe(answeringMalformedLines(stdout, log)), stdout);

  let closing: Promise<void> | undefined;
  let markClosed: () => void = () => {};
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  // The body starts a microtask later, once `closing` is set: closing the server closes the transport,
  // whose onclose is this function again, and must find the close already under way.
  const close = () =>
    (closing ??= Promise.resolve().then(async () => {
      stdin.off('end', onEnd);
      stdin.off('close', onEnd);
      await server.close().catch(() => undefined);
      if (ownsSession) {
        await port.deleteSession(session.session_id).catch((error: unknown) => {
          log.warn('mcp stdio session close failed', { session: session.session_id, error: String(error) });
        });
      }
      log.info('mcp stdio session closed', { session: session.session_id });
      markClosed();
    }));
  const onEnd = () => void close();
  stdin.once('end', onEnd);
  stdin.once('close', onEnd);
  transport.onclose = onEnd;

  await server.connect(transport);
  return { sessionId: session.session_id, closed, close };
}
