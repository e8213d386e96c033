/**
 * `tabgate approvals list|approve|deny ID`: the owner's terminal as an approval channel (docs/safety.md
 * "Approvals"). Needs the operator key: the agent's API key can ask for an approval, never give one.
 * A takeover (the agent asks the person to do a step themselves, docs/safety.md "Takeover") is listed
 * with its reason; `done ID` and `decline ID` say the same as approve and deny, in its words.
 */
import type { Command } from 'commander';
import type { ApprovalRecord } from '../../protocol/index.js';
import { describeFailure, operatorClient, operatorTarget } from '../gateway-access.js';

function line(record: ApprovalRecord): string {
  const decided = record.decided_at ? ` by ${record.decided_by ?? '?'} via ${record.channel ?? '?'}` : '';
  // The agent's words: one line, no control characters (the tool's schema), quoted as what they are.
  const what =
    record.kind === 'takeover'
      ? `takeover: ${JSON.stringify(record.summary)}${record.frame_origin ? ` on ${record.frame_origin}` : ''}`
      : `${record.summary}  [${record.classes.join(', ')}]`;
  return `${record.approval_id}  ${record.status.padEnd(8)} session ${record.session_id}  ${what}${decided}`;
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
  for (const [verb, approve, description, said] of [
    ['approve', true, 'Let that one action happen, once.', 'Approved'],
    ['deny', false, 'Refuse it; nothing is done.', 'Denied'],
    ['done', true, 'Say you did the step of that takeover; the agent goes on.', 'Done'],
    ['decline', false, 'Decline the step of that takeover; the agent is told.', 'Declined'],
  ] as const) {
    approvals
      .command(`${verb} <id>`)
      .description(description)
      .action((id: string) =>
        run(verb, async () => {
          const body = await client().request<{ approval: ApprovalRecord }>(
            'POST',
            `/v1/approvals/${encodeURIComponent(id)}/${approve ? 'approve' : 'deny'}`,
            {},
          );
          process.stdout.write(`${said}: ${line(body.approval)}\n`);
        }),
      );
  }
}
