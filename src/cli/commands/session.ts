/**
 * `tabgate session release ID`: the owner gives a session that a user's browser served back to the
 * default backend. Sessions bound to a browser never leave it otherwise (stop, revoke and restart all
 * fail closed); this is the one explicit, audited way, and it needs the owner's operator key.
 * `tabgate session stop ID` / `resume ID` (also spelled `sessions`): the owner's Stop, which cancels the
 * session's running call and refuses the next ones until Resume.
 */
import type { Command } from 'commander';
import { describeFailure, operatorClient, operatorTarget } from '../gateway-access.js';

export function sessionCommand(program: Command): void {
  const session = program
    .command('session')
    .alias('sessions')
    .description('Owner-only acts on sessions of the running gateway.')
    .option('--gateway <url>', 'the gateway to talk to (default: from config)');
  const act = async (
    verb: 'stop' | 'resume',
    id: string,
    done: (body: { cancelled_calls?: number }) => string,
  ) => {
    try {
      const client = operatorClient(operatorTarget(session.opts<{ gateway?: string }>().gateway));
      const body = await client.request<{ cancelled_calls?: number }>(
        'POST',
        `/v1/sessions/${encodeURIComponent(id)}/${verb}`,
        {},
      );
      process.stdout.write(done(body) + '\n');
    } catch (error) {
      process.stderr.write(`tabgate session ${verb}: ${describeFailure(error)}\n`);
      process.exitCode = 1;
    }
  };
  session
    .command('stop <id>')
    .description('Stop a session: cancel its running call and refuse further calls until resumed.')
    .action((id: string) =>
      act(
        'stop',
        id,
        (body) =>
          `Stopped ${id} (${body.cancelled_calls ?? 0} running call(s) cancelled); resume with \`tabgate sessions resume ${id}\`.`,
      ),
    );
  session
    .command('resume <id>')
    .description('Let a stopped session run calls again.')
    .action((id: string) => act('resume', id, () => `Resumed ${id}: its calls run again.`));
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
