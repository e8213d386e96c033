/**
 * `tabgate tools`: choose the browser behind sessions that no extension holds (local Chromium or a cloud
 * provider) and store its credentials. Arrow keys in a terminal, numbered prompts on a pipe, and
 * `--provider NAME --set KEY=VALUE …` for scripts. Writes `$TABGATE_HOME/.env` and config.yaml.
 */
import type { Command } from 'commander';
import { configPath, readConfigFile, resolveHome } from '../../gateway/config/load.js';
import { sectionKey } from '../../gateway/config/plugin-sections.js';
import { createLogger } from '../../log/logger.js';
import { discoverProviders, loadHomeEnv } from '../../providers/index.js';
import { LinePrompter } from '../../providers/setup/line-prompter.js';
import { SetupAborted, type SetupPrompter } from '../../providers/setup/prompter.js';
import { SetupUsageError, runSetup, type SetupMode } from '../../providers/setup/run-setup.js';
import { TtyPrompter } from '../../providers/setup/tty-prompter.js';

interface ToolsFlags {
  provider?: string;
  set: string[];
}

const collect = (value: string, previous: string[]) => [...previous, value];

type Tree = Record<string, unknown>;
const asTree = (value: unknown): Tree =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Tree) : {};

export async function runToolsCommand(flags: ToolsFlags): Promise<number> {
  const log = createLogger({ level: 'warn' });
  const home = resolveHome(process.env);
  const configFile = configPath(home);
  let prompter: SetupPrompter | undefined;
  try {
    const tree = readConfigFile(configFile);
    const browser = asTree(tree.browser);
    const enabled = asTree(tree.plugins).enabled;
    const env: Record<string, string | undefined> = { ...process.env };
    loadHomeEnv(home, env);
    const { registry } = await discoverProviders({
      env,
      log,
      home,
      enabled: Array.isArray(enabled)
        ? enabled.filter((item): item is string => typeof item === 'string')
        : [],
      disabled: Array.isArray(asTree(tree.plugins).disabled)
        ? (asTree(tree.plugins).disabled as unknown[]).filter(
            (item): item is string => typeof item === 'string',
          )
        : [],
      // `browser.remote_cdp` is the config section of provider `remote-cdp`.
      config: (name) => asTree(browser[sectionKey(name)]),
    });
    if (flags.set.length > 0 && flags.provider === undefined)
      throw new SetupUsageError('--set needs --provider NAME');
    let mode: SetupMode;
    if (flags.provider !== undefined) mode = { kind: 'flags', provider: flags.provider, set: flags.set };
    else {
      prompter = process.stdin.isTTY
        ? new TtyPrompter(process.stdin, process.stdout)
        : new LinePrompter(process.stdin, process.stdout);
      mode = { kind: 'interactive', prompter };
    }
    const current = typeof browser.cloud_provider === 'string' ? browser.cloud_provider : undefined;
    await runSetup({ home, env, registry, log, current, configFile, output: process.stdout, mode });
    return 0;
  } catch (error) {
    if (error instanceof SetupAborted) {
      process.stderr.write(`tabgate tools: ${error.message}; nothing was changed.\n`);
      return 130;
    }
    process.stderr.write(`tabgate tools: ${error instanceof Error ? error.message : String(error)}\n`);
    return error instanceof SetupUsageError ? 2 : 1;
  } finally {
    prompter?.close();
  }
}

export function toolsCommand(program: Command): void {
  program
    .command('tools')
    .description(
      'Choose the browser for sessions (local Chromium or a cloud provider) and store its credentials.',
    )
    .option('--provider <name>', 'choose without prompting: local or a provider name')
    .option(
      '--set <KEY=VALUE>',
      'store an environment variable in $TABGATE_HOME/.env (repeatable)',
      collect,
      [],
    )
    .action(async (flags: ToolsFlags) => {
      process.exitCode = await runToolsCommand(flags);
    });
}
