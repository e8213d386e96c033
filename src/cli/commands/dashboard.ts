/**
 * `tabgate dashboard`: prints a one-time link that signs this computer's browser in as the gateway's
 * owner and lands on the dashboard (made with the operator key, never the agent's API key; it works once,
 * for ten minutes). `--revoke-all` signs every browser out instead and voids links not yet used.
 */
import type { Command } from 'commander';
import { describeFailure, operatorClient, operatorTarget } from '../gateway-access.js';
import { signInLink } from './sign-in.js';

export function dashboardCommand(program: Command): void {
  program
    .command('dashboard')
    .description(
      "Print a one-time link that opens the owner's dashboard, signed in, in this computer's browser.",
    )
    .option('--gateway <url>', 'the gateway (default: from config)')
    .option('--revoke-all', 'sign every browser out of the dashboard and void unused links')
    .action(async (options: { gateway?: string; revokeAll?: boolean }) => {
      try {
        const target = operatorTarget(options.gateway);
        if (options.revokeAll) {
          await operatorClient(target).request('POST', '/v1/operator/sign-out-everywhere', {});
          process.stdout.write('Signed every browser out of the dashboard; unused links no longer work.\n');
          return;
        }
        const link = await signInLink(target, '/');
        process.stdout.write(
          `Open the dashboard with this link (it works once, for ${Math.round(link.expires_in_seconds / 60)} minutes, in a browser on this computer):\n${link.url}\n`,
        );
      } catch (error) {
        process.stderr.write(`tabgate dashboard: ${describeFailure(error)}\n`);
        process.exitCode = 1;
      }
    });
}
