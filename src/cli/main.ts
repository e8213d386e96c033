/**
 * `tabgate` — commands are registered from a plain list, one file each in `commands/`. The CLI parses
 * flags and the environment into config and hands them on; it does nothing else.
 */
import { Command } from 'commander';
import { keyCommand } from './commands/key.js';
import { serveCommand } from './commands/serve.js';
import { toolsCommand } from './commands/tools.js';
import { pairCommand } from './commands/pair.js';
import { extensionPathCommand } from './commands/extension-path.js';
import { mcpCommand } from './commands/mcp.js';
import { callCommand } from './commands/call.js';
import { auditCommand } from './commands/audit.js';
import { doctorCommand } from './commands/doctor.js';
import { sessionCommand } from './commands/session.js';
import { approvalsCommand } from './commands/approvals.js';
import { grantsCommand } from './commands/grants.js';
import { signInCommand } from './commands/sign-in.js';
import { dashboardCommand } from './commands/dashboard.js';
import { pluginsCommand } from './commands/plugins.js';
import { secretsCommand } from './commands/secrets.js';

export type CommandDefinition = (program: Command) => void;

/** Add new commands here (mcp, call, tools, pair, doctor, extension-path). */
export const COMMANDS: CommandDefinition[] = [
  serveCommand,
  keyCommand,
  pairCommand,
  signInCommand,
  dashboardCommand,
  sessionCommand,
  secretsCommand,
  grantsCommand,
  approvalsCommand,
  extensionPathCommand,
  toolsCommand,
  pluginsCommand,
  mcpCommand,
  callCommand,
  auditCommand,
  doctorCommand,
];

export function buildProgram(): Command {
  const program = new Command()
    .name('tabgate')
    .description('One safe browser toolset for AI agents: your tab, a local Chromium, or a cloud browser.')
    .version('0.1.0');
  for (const register of COMMANDS) register(program);
  return program;
}

await buildProgram().parseAsync(process.argv);
