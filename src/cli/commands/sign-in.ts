/**
 * `tabgate sign-in [--next PATH]`: prints a one-time link that signs a browser on this computer in as
 * the gateway's owner (what approving a pairing on its page needs). Made with the owner's operator key,
 * which agents never hold; the link works once, for ten minutes.
 */
import type { Command } from 'commander';
import { SIGN_IN_LINKS_PATH } from '../../gateway/operator/index.js';
import { describeFailure, operatorClient, operatorTarget } from '../gateway-access.js';

export async function signInLink(target: { baseUrl: string; operatorKey: string }, next?: string) {
  return operatorClient(target).request<{ url: string; expires_in_seconds: number }>(
    'POST',
    SIGN_IN_LINKS_PATH,
    {
      ...(next ? { next } : {}),
    },
  );
}

export function signInCommand(program: Command): void {
  program
    .command('sign-in')
    .description("Print a one-time link that signs this computer's browser in as the gateway's owner.")
    .option('--gateway <url>', 'the gateway to sign in to (default: from config)')
    .option('--next <path>', 'a gateway page to open once signed in, e.g. /pair/ID')
    .action(async (options: { gateway?: string; next?: string }) => {
      try {
        const link = await signInLink(operatorTarget(options.gateway), options.next);
        process.stdout.write(
          `Open this link in the browser you pair tabgate's extension from (it works once, for ${Math.round(link.expires_in_seconds / 60)} minutes):\n${link.url}\n`,
        );
      } catch (error) {
        process.stderr.write(`tabgate sign-in: ${describeFailure(error)}\n`);
        process.exitCode = 1;
      }
    });
}
