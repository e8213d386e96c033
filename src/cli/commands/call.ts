/**
 * `tabgate call <tool>` for shells and scripts: one tool call against the running gateway, JSON on
 * stdout (`{"ok": true, "result": …}` or `{"error": {"code", "message"}}`), exit 0 on success and 1 on
 * a typed failure. Without `--session` it opens a session for the call and closes it afterwards,
 * unless `--keep` (then the output carries `session_id` for the next call).
 */
import { InvalidArgumentError, type Command } from 'commander';
import { describeTools, isTabgateError } from '../../protocol/index.js';
import { connectToGateway } from '../gateway-access.js';

interface CallOptions {
  session?: string;
  arg: string[];
  json?: string;
  gateway?: string;
  keep?: boolean;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** `--arg key=value`: the value is typed by the tool's schema, so `text=123` stays a string. */
export function argumentsFrom(
  tool: string,
  pairs: string[],
  json: string | undefined,
): Record<string, unknown> {
  let args: Record<string, unknown> = {};
  if (json !== undefined) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(json);
    } catch {
      throw new InvalidArgumentError('--json is not valid JSON');
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new InvalidArgumentError('--json must be a JSON object');
    }
    args = { ...(parsed as Record<string, unknown>) };
  }
  const properties = (describeTools().find((t) => t.name === tool)?.inputSchema.properties ?? {}) as Record<
    string,
    { type?: string }
  >;
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new InvalidArgumentError(`--arg ${pair}: expected key=value`);
    const key = pair.slice(0, eq);
    const raw = pair.slice(eq + 1);
    const type = properties[key]?.type;
    if (type === 'string' || type === undefined) args[key] = raw;
    else {
      try {
        args[key] = JSON.parse(raw) as unknown;
      } catch {
        args[key] = raw;
      }
    }
  }
  return args;
}

export function callCommand(program: Command): void {
  program
    .command('call')
    .description('Call one browser tool on the running gateway and print the JSON result.')
    .argument('<tool>', 'tool name, e.g. browser_navigate (GET /v1/tools lists them)')
    .option('--session <id>', 'run in this session (default: a new session, closed after the call)')
    .option('--arg <key=value>', 'an argument; repeat for more', collect, [])
    .option('--json <object>', 'all arguments as one JSON object')
    .option('--keep', 'keep the new session open and print its id')
    .option('--gateway <url>', 'gateway URL (default: from the configuration, http://127.0.0.1:8642)')
    .action(async (tool: string, options: CallOptions) => {
      let sessionId = options.session;
      let ownSession = false;
      try {
        const args = argumentsFrom(tool, options.arg, options.json);
        const client = connectToGateway(options.gateway);
        if (!sessionId) {
          sessionId = (await client.createSession({ title: `tabgate call ${tool}`, source: 'cli' }))
            .session_id;
          ownSession = !options.keep;
        }
        try {
          const result = await client.callTool(sessionId, tool, args);
          const out =
            options.keep && !options.session
              ? { ok: true, session_id: sessionId, result }
              : { ok: true, result };
          process.stdout.write(JSON.stringify(out) + '\n');
        } finally {
          if (ownSession) await client.deleteSession(sessionId).catch(() => undefined);
        }
      } catch (error) {
        const code = isTabgateError(error) ? error.code : 'invalid_request';
        const message = error instanceof Error ? error.message : String(error);
        process.stdout.write(JSON.stringify({ error: { code, message } }) + '\n');
        console.error(`tabgate call: ${code}: ${message}`);
        process.exitCode = 1;
      }
    });
}
