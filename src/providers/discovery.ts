/**
 * Finds and loads provider plugins from three places (docs/providers.md "Where plugins come from"), in order:
 *   1. bundled `plugins/browser/<name>/` next to tabgate, always;
 *   2. `$TABGATE_HOME/plugins/browser/<name>/`, only when named in `plugins.enabled` (by folder or
 *      plugin.yaml name): code in the home folder runs only when the user asked for it;
 *   3. npm packages in the given node_modules folders (tabgate's own, the one a global tabgate sits in,
 *      and `$TABGATE_HOME/node_modules`) whose package.json declares
 *      `"tabgate": {"plugins": ["./plugin-folder", …]}`: installing the package is the opt-in.
 * `plugins.disabled` skips a plugin of any source. Nothing here throws: every broken plugin becomes a diagnostic (logged, and shown by `tabgate doctor`).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log/logger.js';
import type { ProviderContext } from './api.js';
import { loadPlugin, type LoadedPlugin, type PluginDiagnostic } from './plugin-loader.js';
import { ProviderRegistry, type PluginSource } from './registry.js';

export type { LoadedPlugin, PluginDiagnostic } from './plugin-loader.js';

/** tabgate's package root: this file is src/providers/ (tsx) or dist/providers/ (built). */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BUNDLED_PLUGINS_DIR = path.join(PACKAGE_ROOT, 'plugins', 'browser');

export interface DiscoveryOptions {
  env: Readonly<Record<string, string | undefined>>;
  log: Logger;
  /** `$TABGATE_HOME`; user plugins live in its plugins/browser/. */
  home?: string;
  /** `plugins.enabled` from config. */
  enabled?: readonly string[];
  /** `plugins.disabled` from config: skipped whatever their source. */
  disabled?: readonly string[];
  /** A provider's config section (`browser.<name>`, `-` written `_`); `{}` when absent. */
  config?: (name: string) => Readonly<Record<string, unknown>>;
  /** `browser.provider_timeout_s` in milliseconds (default 60 s). */
  createTimeoutMs?: number;
  /** Defaults to tabgate's own plugins/browser. */
  bundledDir?: string;
  /** Defaults to defaultNodeModulesDirs(home). */
  nodeModulesDirs?: readonly string[];
}

/** A plugin found but not loaded because the user has not asked for it or has turned it off. */
export interface SkippedPlugin {
  plugin: string;
  source: PluginSource;
  path: string;
  state: 'not-enabled' | 'disabled';
}

export interface Discovery {
  registry: ProviderRegistry;
  plugins: LoadedPlugin[];
  diagnostics: PluginDiagnostic[];
  skipped: SkippedPlugin[];
}

export const DEFAULT_PROVIDER_TIMEOUT_MS = 60_000;

/**
 * tabgate's own node_modules; the node_modules a global tabgate is installed in (its plugins are
 * installed next to it with `npm install -g`); and `$TABGATE_HOME/node_modules`.
 */
export function defaultNodeModulesDirs(home: string | undefined, packageRoot = PACKAGE_ROOT): string[] {
  const dirs = [path.join(packageRoot, 'node_modules')];
  const parent = path.dirname(packageRoot);
  if (path.basename(parent) === 'node_modules') dirs.push(parent);
  else if (path.basename(path.dirname(parent)) === 'node_modules') dirs.push(path.dirname(parent)); // @scope/tabgate
  if (home) dirs.push(path.join(home, 'node_modules'));
  return [...new Set(dirs.map((dir) => path.resolve(dir)))];
}

function subdirectories(dir: string): string[] {
  try {
    return readdirSync(dir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.') && !entry.name.startsWith('_'))
      .map((entry) => path.join(dir, entry.name))
      .sort();
  } catch {
    return [];
  }
}

function declaredName(dir: string): string | undefined {
  try {
    return /^name:\s*["']?([^"'\n#]+?)["']?\s*(#.*)?$/m.exec(
      readFileSync(path.join(dir, 'plugin.yaml'), 'utf8'),
    )?.[1];
  } catch {
    return undefined;
  }
}

/** Package folders in a node_modules, scoped ones included. */
function packages(nodeModules: string): string[] {
  return subdirectories(nodeModules).flatMap((dir) =>
    path.basename(dir).startsWith('@') ? subdirectories(dir) : [dir],
  );
}

function packageJson(pkgDir: string): unknown {
  try {
    return JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  } catch {
    return undefined;
  }
}

function npmPluginDirs(pkgDir: string, report: (d: PluginDiagnostic) => void): string[] {
  const manifest = packageJson(pkgDir);
  const tabgate = (manifest as { tabgate?: { plugins?: unknown } } | null)?.tabgate;
  if (tabgate === undefined) return [];
  const list = tabgate?.plugins;
  const fail = (message: string) =>
    report({ plugin: path.basename(pkgDir), source: 'npm', path: pkgDir, level: 'error', message });
  if (!Array.isArray(list) || !list.every((item) => typeof item === 'string')) {
    fail('package.json "tabgate.plugins" must be a list of plugin folders relative to the package');
    return [];
  }
  return list.flatMap((relative: string) => {
    const dir = path.resolve(pkgDir, relative);
    if (path.relative(pkgDir, dir).startsWith('..') || !existsSync(dir) || !statSync(dir).isDirectory()) {
      fail(`"${relative}" in tabgate.plugins is not a folder inside the package`);
      return [];
    }
    return [dir];
  });
}

export async function discoverProviders(options: DiscoveryOptions): Promise<Discovery> {
  const registry = new ProviderRegistry();
  const plugins: LoadedPlugin[] = [];
  const diagnostics: PluginDiagnostic[] = [];
  const skipped: SkippedPlugin[] = [];
  const base: ProviderContext = {
    env: options.env,
    log: options.log,
    config: (name) => options.config?.(name) ?? {},
  };
  const loadOptions = { createTimeoutMs: options.createTimeoutMs ?? DEFAULT_PROVIDER_TIMEOUT_MS };
  const report = (diagnostic: PluginDiagnostic) => {
    diagnostics.push(diagnostic);
    options.log[diagnostic.level === 'error' ? 'error' : 'warn'](
      `browser plugin ${diagnostic.level === 'error' ? 'skipped' : 'warning'}: ${diagnostic.message}`,
      {
        plugin: diagnostic.plugin,
        source: diagnostic.source,
        path: diagnostic.path,
      },
    );
  };
  const disabled = new Set(options.disabled ?? []);
  const enabled = new Set(options.enabled ?? []);
  const named = (set: Set<string>, names: (string | undefined)[]) =>
    names.some((name) => name !== undefined && set.has(name));
  const load = async (dir: string, source: PluginSource, aliases: (string | undefined)[] = []) => {
    const names = [path.basename(dir), declaredName(dir), ...aliases];
    const plugin = declaredName(dir) ?? path.basename(dir);
    if (named(disabled, names)) {
      skipped.push({ plugin, source, path: dir, state: 'disabled' });
      options.log.debug('browser plugin disabled (plugins.disabled)', { plugin, path: dir });
      return;
    }
    if (source === 'user' && !named(enabled, names)) {
      skipped.push({ plugin, source, path: dir, state: 'not-enabled' });
      options.log.debug('browser plugin not enabled (add it to plugins.enabled)', { path: dir });
      return;
    }
    const result = await loadPlugin(dir, source, registry, base, loadOptions);
    result.diagnostics.forEach(report);
    if (result.loaded) plugins.push(result.loaded);
  };

  for (const dir of subdirectories(options.bundledDir ?? BUNDLED_PLUGINS_DIR)) await load(dir, 'bundled');
  if (options.home) {
    for (const dir of subdirectories(path.join(options.home, 'plugins', 'browser'))) await load(dir, 'user');
  }
  const nodeModules = options.nodeModulesDirs ?? defaultNodeModulesDirs(options.home);
  for (const modules of nodeModules) {
    for (const pkg of packages(modules)) {
      const pkgName = (packageJson(pkg) as { name?: unknown } | undefined)?.name;
      for (const dir of npmPluginDirs(pkg, report))
        await load(dir, 'npm', [typeof pkgName === 'string' ? pkgName : undefined]);
    }
  }
  return { registry, plugins, diagnostics, skipped };
}
