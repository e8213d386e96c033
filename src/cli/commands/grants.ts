/**
 * `tabgate grants list|add|revoke SESSION [SITE]`: the owner grants a session a site (docs/safety.md).
 * Needs the operator key, like `tabgate pair`: the agent may ask for sites, only the owner grants them.
 */
import type { Command } from 'commander';
import { describeFailure, operatorClient, operatorTarget } from '../gateway-access.js';

interface SitesView {
  browser: string;
  mode: string;
  allow: string[];
  deny: string[];
  granted: string[];
  requested: string[];
}

function print(sessionId: string, sites: SitesView): void {
  const lines = [
    `session ${sessionId}: ${sites.browser} browser, mode ${sites.mode}`,
    `  granted:   ${sites.granted.join(' ') || '(none)'}`,
    `  requested: ${sites.requested.join(' ') || '(none)'}`,
    `  allow:     ${sites.allow.join(' ') || '(none)'}   deny: ${sites.deny.join(' ') || '(none)'}`,
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

export function grantsCommand(program: Command): void {
  const grants = program
    .command('grants')
    .description("The owner's site grants of a session (the agent can ask for sites, never grant them).")
    .option('--gateway <url>', 'the gateway to talk to (default: from config)');
  const run = async (what: string, id: string, work: (path: string) => Promise<void>) => {
    try {
      await work(`/v1/sessions/${encodeURIComponent(id)}/site-grants`);
    } catch (error) {
      process.stderr.write(`tabgate grants ${what}: ${describeFailure(error)}\n`);
      process.exitCode = 1;
    }
  };
  const client = () => operatorClient(operatorTarget(grants.opts<{ gateway?: string }>().gateway));
  grants
    .command('list <session>')
    .description('Show the sites the session may open, and those it asked for.')
    .action((id: string) =>
      run('list', id, async (path) => {
        const body = await client().request<{ session_id: string; sites: SitesView }>('GET', path);
        print(body.session_id, body.sites);
      }),
    );
  grants
    .command('add <session> <site>')
    .description('Grant a site: https://mail.example.com, example.com or *.example.com.')
    .action((id: string, site: string) =>
      run('add', id, async (path) => {
        const body = await client().request<{ session_id: string; granted: string }>('POST', path, { site });
        process.stdout.write(`Granted ${body.granted} to ${body.session_id}.\n`);
      }),
    );
  grants
    .command('revoke <session> <site>')
    .description('Take a granted site back; the next navigation there is refused.')
    .action((id: string, site: string) =>
      run('revoke', id, async (path) => {
        await client().request('POST', `${path}/revoke`, { site });
        process.stdout.write(`Revoked ${site} from ${id}.\n`);
      }),
    );
}
