/**
 * `tabgate pair approve CODE | deny CODE | list | revoke ID`: the owner's side of pairing, against the
 * running gateway with the owner's operator key (never the agents' API key). The code is the one the
 * extension shows.
 */
import type { Command } from 'commander';
import type { PairingGrant } from '../../gateway/pairing/grant-store.js';
import { describeFailure, operatorClient, operatorTarget } from '../gateway-access.js';

export interface PairTarget {
  baseUrl: string;
  operatorKey: string;
}

/** One call of the pairing API; a refusal reads `<message> (<code>)` for the person at the terminal. */
async function call(target: PairTarget, method: string, path: string, body?: unknown): Promise<unknown> {
  try {
    return await operatorClient(target).request(method, path, body);
  } catch (error) {
    throw new Error(describeFailure(error));
  }
}

/** Runs one pair subcommand and returns the lines to print. */
export async function runPair(target: PairTarget, action: string, argument?: string): Promise<string[]> {
  switch (action) {
    case 'approve':
    case 'deny': {
      const result = (await call(target, 'POST', `/v1/pairings/${action}`, { code: argument ?? '' })) as {
        name: string;
        origin: string;
      };
      return [`${action === 'approve' ? 'Approved' : 'Denied'}: ${result.name} (${result.origin})`];
    }
    case 'list': {
      const { grants, pending } = (await call(target, 'GET', '/v1/pairings')) as {
        grants: PairingGrant[];
        pending: { name: string; origin: string }[];
      };
      const lines = grants.map(
        (g) =>
          `${g.grant_id}  ${g.revoked_at ? 'revoked' : 'active '}  ${g.name}  ${g.origin}  paired ${g.created_at}` +
          `  last used ${g.last_used_at ?? 'never'}`,
      );
      for (const p of pending) lines.push(`(waiting)         ${p.name}  ${p.origin}`);
      return lines.length > 0 ? lines : ['No paired extensions.'];
    }
    case 'revoke': {
      const { grant } = (await call(
        target,
        'DELETE',
        `/v1/pairings/${encodeURIComponent(argument ?? '')}`,
      )) as {
        grant: PairingGrant;
      };
      return [`Revoked ${grant.grant_id} (${grant.name}); its controllers were disconnected.`];
    }
    default:
      throw new Error(`unknown pair action ${JSON.stringify(action)}: use approve, deny, list or revoke`);
  }
}

export function pairCommand(program: Command): void {
  const pair = program
    .command('pair')
    .description('Approve, deny, list and revoke browser extensions paired with the running gateway.')
    .option('--gateway <url>', 'the gateway to talk to (default: from config)');
  const run = async (action: string, argument?: string) => {
    try {
      const lines = await runPair(
        operatorTarget(pair.opts<{ gateway?: string }>().gateway),
        action,
        argument,
      );
      for (const line of lines) process.stdout.write(line + '\n');
    } catch (error) {
      process.stderr.write(`tabgate pair ${action}: ${(error as Error).message}\n`);
      process.exitCode = 1;
    }
  };
  pair
    .command('approve <code>')
    .description('Approve the extension showing this code.')
    .action((code: string) => run('approve', code));
  pair
    .command('deny <code>')
    .description('Deny the extension showing this code.')
    .action((code: string) => run('deny', code));
  pair
    .command('list')
    .description('List paired extensions and waiting requests.')
    .action(() => run('list'));
  pair
    .command('revoke <id>')
    .description('Revoke a paired extension and disconnect it.')
    .action((id: string) => run('revoke', id));
}
