/**
 * `tabgate serve [--host] [--port] [--store URL] [--cluster redis://HOST:PORT]`: runs the gateway until
 * SIGINT/SIGTERM, then closes it gracefully and exits 0. Prints where the API key is stored, never the
 * key. A store or a Redis that cannot be reached stops it at once (exit 1), naming the URL with its
 * password hidden.
 */
import type { Command } from 'commander';
import { ConfigError, loadConfig } from '../../gateway/config/index.js';
import { createLogger } from '../../log/logger.js';
import { isStartError } from '../../gateway/start-errors.js';
import { parsePort } from '../options.js';

const LOOPBACK = /^(127\.|::1$|localhost$)/;

export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('Run the gateway (HTTP API, controller socket).')
    .option('--host <address>', 'address to bind (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on (default 8642; 0 picks a free one)', parsePort)
    .option(
      '--store <url>',
      'postgres://USER@HOST:PORT/DB to share sessions, grants and the audit log with other gateways (default: the SQLite file in the home folder)',
    )
    .option('--cluster <redis-url>', 'run as one node of a cluster on this Redis (redis://HOST:PORT)')
    .action(async (options: { host?: string; port?: number; store?: string; cluster?: string }) => {
      const log = createLogger();
      let config;
      try {
        config = loadConfig({
          env: process.env,
          flags: { host: options.host, port: options.port, store: options.store, cluster: options.cluster },
          log,
        });
      } catch (error) {
        if (error instanceof ConfigError) {
          console.error(`tabgate: ${error.message}`);
          process.exit(2);
        }
        throw error;
      }
      // A sign-in link is a secret: it goes to the owner's terminal, never to a log file or a pipe.
      const tellOwner = process.stderr.isTTY
        ? (text: string) => process.stderr.write(text + '\n')
        : undefined;
      // Loaded when the command runs: main.ts registers every command at start, and a top-level import
      // would load the whole gateway for `tabgate --version` or `tabgate pair approve` too.
      const { startGateway } = await import('../../gateway/server.js');
      let gateway;
      try {
        gateway = await startGateway({ config, env: process.env, log, tellOwner });
      } catch (error) {
        if (isStartError(error)) {
          console.error(`tabgate: ${error.message}`);
          process.exit(1);
        }
        throw error;
      }
      if (!LOOPBACK.test(gateway.host)) {
        console.warn(
          `WARNING: tabgate is bound to ${gateway.host}, reachable from other machines. Anyone who has the API key can drive browsers through it.`,
        );
      }
      // One write, so a parent reading stdout sees both lines together.
      const keyLine =
        gateway.apiKey.source === 'configured'
          ? 'API key: from API_SERVER_KEY / gateway.api_server.key'
          : gateway.apiKey.source === 'none'
            ? 'API key: none (gateway.api_server.key is empty)'
            : `API key: stored in ${gateway.apiKey.file} (print it with \`tabgate key\`)`;
      const ownerLine =
        'Owner: approve a pairing with `tabgate pair approve CODE`; `tabgate sign-in` signs a browser in to approve on the page';
      const dashboardLine = `Dashboard: ${gateway.url}/ (sign in with \`tabgate dashboard\`)`;
      process.stdout.write(
        `tabgate listening on ${gateway.url}\n${keyLine}\n${ownerLine}\n${dashboardLine}\n`,
      );

      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        log.info('shutting down', { signal });
        void gateway.close().then(() => process.exit(0));
      };
      process.on('SIGINT', () => stop('SIGINT'));
      process.on('SIGTERM', () => stop('SIGTERM'));
    });
}
