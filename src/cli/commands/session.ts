/**
 * `tabgate session release ID`: the owner gives a session that a user's browser served back to the
 * default backend. Sessions bound to a browser never leave it otherwise (stop, revoke and restart all
 * fail closed); this is the one explicit, audited way, and it needs the owner's operator key.
 */
import type { Command } from 'commander';
import { describeFailure, operatorClient, operatorTarget } from '../gateway-access.js';

export function sessionCommand(program: Command): void {
  const session = program
    .command('session')
    .description('Owner-only acts on sessions of the running gateway.')
    .option('--gateway <url>', 'the gateway to talk to (default: from config)');
  session
    .command('release <id>')
    .description(
      "Unbind a session from the user's browser it was bound to (audited); it may then use the default backend.",
    )
    .action(async (id: string) => {
      try {
        const client = operatorClient(operatorTarget(session.opts<{ gateway?: string }>().gateway));
        await client.request('POST', `/v1/sessions/${encodeURIComponent(id)}/release`, {});
        process.stdout.write(`Released ${id}: its calls may now use the default backend.\n`);
      } catch (error) {
        process.stderr.write(`tabgate session release: ${describeFailure(error)}\n`);
        process.exitCode = 1;
      }
    });
}
