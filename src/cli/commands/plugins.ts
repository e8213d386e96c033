/**
 * `tabgate plugins list [--json] | enable NAME | disable NAME`: which provider plugins tabgate finds,
 * where (bundled, the home folder, npm), whether they load, and why a broken one was skipped. Enabling
 * writes `plugins.enabled` (home plugins run only when named there) and takes the name off
 * `plugins.disabled`; disabling does the reverse, for a plugin of any source.
 */
import type { Command } from 'commander';
import { providerDiscoveryOptions } from '../../gateway/backends/providers/discovery-options.js';
import { configPath, loadConfig, type GatewayConfig } from '../../gateway/config/index.js';
import { silentLogger } from '../../log/logger.js';
import { discoverProviders, loadHomeEnv } from '../../providers/index.js';
import { findPluginRow, pluginRows, type PluginRow } from '../../providers/plugin-list.js';
import { setConfigValue } from '../../providers/setup/config-writer.js';

async function currentRows(): Promise<{ config: GatewayConfig; rows: PluginRow[] }> {
  const config = loadConfig({ env: process.env });
  const env: Record<string, string | undefined> = { ...process.env };
  loadHomeEnv(config.home, env);
  const discovery = await discoverProviders(providerDiscoveryOptions(config, env, silentLogger));
  return { config, rows: pluginRows(discovery, silentLogger) };
}

function printTable(rows: readonly PluginRow[]): void {
  const line = (row: PluginRow) => {
    const providers =
      row.providers.map((p) => `${p.name}${p.ready ? '' : ' (not configured)'}`).join(', ') || '-';
    const state = row.state === 'not-enabled' ? 'not enabled' : row.state;
    return [row.plugin, row.source, state, providers];
  };
  const cells = [['PLUGIN', 'SOURCE', 'STATE', 'PROVIDERS'], ...rows.map(line)];
  const widths = [0, 1, 2].map((i) => Math.max(...cells.map((c) => (c[i] ?? '').length)));
  for (const [i, row] of cells.entries()) {
    process.stdout.write(
      row.map((cell, j) => (j < 3 ? cell.padEnd(widths[j] ?? 0) : cell)).join('  ') + '\n',
    );
    const source = i > 0 ? rows[i - 1] : undefined;
    if (!source) continue;
    if (source.state === 'not-enabled')
      process.stdout.write(`    enable with: tabgate plugins enable ${source.plugin}\n`);
    for (const note of source.notes) process.stdout.write(`    ${note}\n`);
  }
}

const withoutName = (list: readonly string[], names: readonly string[]) =>
  list.filter((item) => !names.includes(item));

async function setState(name: string, enable: boolean): Promise<number> {
  const { config, rows } = await currentRows();
  const row = findPluginRow(rows, name);
  if (!row) {
    process.stderr.write(
      `tabgate plugins: no plugin named "${name}"; \`tabgate plugins list\` shows the plugins found.\n`,
    );
    return 1;
  }
  const folder = row.path.split(/[\\/]/).at(-1) ?? row.plugin;
  const names = [row.plugin, folder, name];
  const file = configPath(config.home);
  let enabled = withoutName(config.plugins.enabled, names);
  const disabled = withoutName(config.plugins.disabled, names);
  // Home plugins run only when named in plugins.enabled; bundled and npm ones load unless disabled.
  if (enable && row.source === 'home') enabled = [...enabled, row.plugin];
  if (!enable) disabled.push(row.plugin);
  setConfigValue(file, ['plugins', 'enabled'], enabled);
  setConfigValue(file, ['plugins', 'disabled'], disabled);
  process.stdout.write(
    `${enable ? 'Enabled' : 'Disabled'} plugin ${row.plugin} (${row.source}) in ${file}. New sessions of a running \`tabgate serve\` follow it.\n`,
  );
  if (enable && row.state === 'broken')
    process.stdout.write(`It is broken and will be skipped until fixed: ${row.notes.join('; ')}\n`);
  return 0;
}

async function guarded(run: () => Promise<number>): Promise<void> {
  try {
    process.exitCode = await run();
  } catch (error) {
    // A ConfigError says which key of which file; anything else is reported the same way.
    process.stderr.write(`tabgate plugins: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  }
}

export function pluginsCommand(program: Command): void {
  const plugins = program
    .command('plugins')
    .description('List browser provider plugins, and enable or disable them.');
  plugins
    .command('list')
    .description(
      'Show every plugin found: source (bundled, home, npm), state, and why a broken one was skipped.',
    )
    .option('--json', 'print the plugins as JSON')
    .action((options: { json?: boolean }) =>
      guarded(async () => {
        const { rows } = await currentRows();
        if (options.json) process.stdout.write(JSON.stringify({ plugins: rows }, null, 2) + '\n');
        else printTable(rows);
        return 0;
      }),
    );
  plugins
    .command('enable <name>')
    .description('Load a plugin: names a home plugin in plugins.enabled, and takes it off plugins.disabled.')
    .action((name: string) => guarded(() => setState(name, true)));
  plugins
    .command('disable <name>')
    .description('Stop loading a plugin of any source (plugins.disabled).')
    .action((name: string) => guarded(() => setState(name, false)));
}
