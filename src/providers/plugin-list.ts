/**
 * What `tabgate plugins list` shows: one row per plugin found, loaded or not, with where it came from,
 * its state and, for one that was skipped, why. Built from a discovery, so it shows exactly what the
 * gateway would load with the same configuration.
 */
import type { Logger } from '../log/logger.js';
import type { Discovery } from './discovery.js';
import type { PluginSource } from './registry.js';
import { safelyAvailable } from './select.js';

export type PluginState = 'loaded' | 'disabled' | 'not-enabled' | 'broken';

export interface PluginRow {
  plugin: string;
  /** `home` is `$TABGATE_HOME/plugins/browser/`. */
  source: 'bundled' | 'home' | 'npm';
  state: PluginState;
  version?: string;
  providers: Array<{ name: string; ready: boolean }>;
  path: string;
  /** Why it is broken, and warnings about a loaded one. */
  notes: string[];
}

const SOURCE_LABEL: Record<PluginSource, PluginRow['source']> = {
  bundled: 'bundled',
  user: 'home',
  npm: 'npm',
};

export function pluginRows(discovery: Discovery, log: Logger): PluginRow[] {
  const rows: PluginRow[] = [];
  const notesOf = (dir: string, level?: 'error' | 'warning') =>
    discovery.diagnostics
      .filter((d) => d.path === dir && (level === undefined || d.level === level))
      .map((d) => d.message);
  for (const plugin of discovery.plugins) {
    rows.push({
      plugin: plugin.name,
      source: SOURCE_LABEL[plugin.source],
      state: 'loaded',
      version: plugin.version,
      providers: plugin.providers.map((name) => {
        const provider = discovery.registry.get(name);
        return { name, ready: provider ? safelyAvailable(provider, log) : false };
      }),
      path: plugin.path,
      notes: notesOf(plugin.path),
    });
  }
  for (const skipped of discovery.skipped) {
    rows.push({
      plugin: skipped.plugin,
      source: SOURCE_LABEL[skipped.source],
      state: skipped.state,
      providers: [],
      path: skipped.path,
      notes: [],
    });
  }
  const listed = new Set(rows.map((row) => row.path));
  for (const diagnostic of discovery.diagnostics) {
    if (listed.has(diagnostic.path) || diagnostic.level !== 'error') continue;
    listed.add(diagnostic.path);
    rows.push({
      plugin: diagnostic.plugin,
      source: SOURCE_LABEL[diagnostic.source],
      state: 'broken',
      providers: [],
      path: diagnostic.path,
      notes: notesOf(diagnostic.path, 'error'),
    });
  }
  return rows;
}

/** The row a name designates: the plugin's name, its folder's name, or a provider it gives. */
export function findPluginRow(rows: readonly PluginRow[], name: string): PluginRow | undefined {
  const wanted = name.trim();
  return (
    rows.find((row) => row.plugin === wanted) ??
    rows.find((row) => row.path.split(/[\\/]/).at(-1) === wanted) ??
    rows.find((row) => row.providers.some((p) => p.name === wanted))
  );
}
