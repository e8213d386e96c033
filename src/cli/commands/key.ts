/** `tabgate key`: prints the API key (creating it on first use), for scripts: `KEY=$(tabgate key)`. */
import type { Command } from 'commander';
import { resolveApiKey } from '../../gateway/auth/api-key.js';
import { loadConfig } from '../../gateway/config/index.js';

export function keyCommand(program: Command): void {
  program
    .command('key')
    .description('Print the API key agents send as "Authorization: Bearer <key>".')
    .action(() => {
      const config = loadConfig({ env: process.env });
      const resolved = resolveApiKey(config);
      if (resolved.key === null) {
        console.error('tabgate: no API key (gateway.api_server.key is set to empty)');
        process.exit(1);
      }
      process.stdout.write(resolved.key + '\n');
    });
}
