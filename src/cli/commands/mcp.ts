/**
 * `tabgate mcp`: MCP over stdio. Standalone by default — the gateway runs in this process (on a free
 * loopback port, so it never collides with `tabgate serve`) and this connection gets its own session.
 * `--gateway URL` attaches to a running gateway instead, whose sessions the extension can serve;
 * `--session ID` joins an existing session. Logs go to stderr: stdout belongs to the protocol.
 */
import type { Command } from 'commander';
import { DEFAULT_PROFILE_ID, OWNER_PRINCIPAL_ID } from '../../gateway/auth/authenticator.js';
import { ConfigError, loadConfig } from '../../gateway/config/index.js';
import { isStartError } from '../../gateway/start-errors.js';
import { createLogger, type LogLevel } from '../../log/logger.js';
import { inProcessAgentPort, type AgentPort } from '../../gateway/mcp/agent-port.js';
import { connectToGateway } from '../gateway-access.js';

interface McpOptions {
  gateway?: string;
  session?: string;
}

export function mcpCommand(program: Command): void {
  program
    .command('mcp')
    .description('Serve the browser tools over MCP on stdio (standalone, or attached to a running gateway).')
    .option('--gateway <url>', 'attach to a running gateway, e.g. http://127.0.0.1:8642')
    .option('--session <id>', 'join this existing session instead of opening a new one')
    .action(async (options: McpOptions) => {
      const log = createLogger({ level: (process.env.TABGATE_LOG_LEVEL as LogLevel | undefined) ?? 'warn' });
      let port: AgentPort;
      let shutdown: () => Promise<void> = async () => {};
      if (options.gateway) {
        port = connectToGateway(options.gateway);
      } else {
        // As with `tabgate serve`: a sign-in link goes to the owner's terminal only, never into a log.
        const tellOwner = process.stderr.isTTY
          ? (text: string) => process.stderr.write(text + '\n')
          : undefined;
        let gateway;
        try {
          const config = loadConfig({ env: process.env, flags: { host: '127.0.0.1', port: 0 }, log });
          // Loaded when the command runs, as in `serve`: not for every command at start.
          const { startGateway } = await import('../../gateway/server.js');
          gateway = await startGateway({ config, env: process.env, log, tellOwner });
        } catch (error) {
          // What a person must fix, said as `tabgate serve` says it; anything else is a bug, with its stack.
          if (!(error instanceof ConfigError) && !isStartError(error)) throw error;
          console.error(`tabgate mcp: ${error.message}`);
          process.exit(error instanceof ConfigError ? 2 : 1);
        }
        shutdown = () => gateway.close();
        port = inProcessAgentPort(gateway.service, {
          principalId: OWNER_PRINCIPAL_ID,
          profileId: DEFAULT_PROFILE_ID,
          transportFamily: 'local-api',
          credential: 'api_key',
        });
      }
      const { serveMcpOverStdio } = await import('../../gateway/mcp/stdio.js');
      let handle;
      try {
        handle = await serveMcpOverStdio({ port, joinSessionId: options.session, log });
      } catch (error) {
        console.error(`tabgate mcp: ${error instanceof Error ? error.message : String(error)}`);
        await shutdown();
        process.exit(1);
      }
      const stop = () => void handle.close();
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      await handle.closed;
      await shutdown();
      process.exit(0);
    });
}
