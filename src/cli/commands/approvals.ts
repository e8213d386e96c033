/**
 * `tabgate approvals list|approve|deny ID`: the owner's terminal as an approval channel (docs/safety.md
 * "Approvals"). Needs the operator key: the agent's API key can ask for an approval, never give one.
 */
import type { Command } from 'commander';
import type { ApprovalRecord } from '../../protocol/index.js';
import { describeFailure, operatorClient, operatorTarget } from '../gateway-access.js';

function line(record: ApprovalRecord): string {
  const decided = record.decided_at ? ` by ${record.decided_by ?? '?'} via ${record.channel ?? '?'}` : '';
  return `${record.approval_id}  ${record.status.padEnd(8)} session ${record.session_id}  ${record.summary}  [${record.classes.join(', ')}]${decided}`;
}

export function approvalsCommand(program: Command): void {
  const approvals = program
    .command('approvals')
    .description("Approve or deny the agent's consequential actions (purchases, posts, uploads, …).")
    .option('--gateway <url>', 'the gateway to talk to (default: from config)');
  const client = () => operatorClient(operatorTarget(approvals.opts<{ gateway?: string }>().gateway));
  const run = async (what: string, work: () => Promise<void>) => {
    try {
      await work();
    } catch (error) {
      process.stderr.write(`tabgate approvals ${what}: ${describeFailure(error)}\n`);
      process.exitCode = 1;
    }
  };
  approvals
    .command('list')
    .description('Show the approvals waiting for a decision (--all: decided ones too).')
    .option('--all', 'also the decided, used and expired ones')
    .action((options: { all?: boolean }) =>
      run('list', async () => {
        const query = options.all ? '' : '?status=pending';
        const body = await client().request<{ approvals: ApprovalRecord[] }>('GET', `/v1/approvals${query}`);
        if (body.approvals.length === 0) {
          process.stdout.write(options.all ? 'No approvals.\n' : 'No approvals are waiting.\n');
          return;
        }
        process.stdout.write(`${body.approvals.map(line).join('\n')}\n`);
      }),
    );
  for (const [verb, approve] of [
    ['approve', true],
    ['deny', false],
  ] as const) {
    approvals
      .command(`${verb} <id>`)
      .description(approve ? 'Let that one action happen, once.' : 'Refuse it; nothing is done.')
      .action((id: string) =>
        run(verb, async () => {
          const body = await client().request<{ approval: ApprovalRecord }>(
            'POST',
            `/v1/approvals/${encodeURIComponent(id)}/${verb}`,
            {},
          );
          process.stdout.write(`${approve ? 'Approved' : 'Denied'}: ${line(body.approval)}\n`);
        }),
      );
  }
}
