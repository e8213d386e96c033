/**
 * Finds and loads provider plugins from three places (docs/providers.md "Where plugins come from"), in order:
 *   1. bundled `plugins/browser/<name>/` next to tabgate, always;
 *   2. `$TABGATE_HOME/plugins/browser/<name>/`, only when named in `plugins.enabled` (by folder or
 *      plugin.yaml name): code in the home folder runs only when the user asked for it;
 *   3. npm packages in the given node_modules folders whose package.json declares
 *      `"tabgate": {"plugins": ["./plugin-folder", …]}`: installing the package is the opt-in.
 * Nothing here throws: every broken plugin becomes a diagnostic (logged, and shown by `tabgate doctor`).
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
  /** Per-provider config sections (`browser.<name>`), keyed by provider name. */
  providerConfig?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** Defaults to tabgate's own plugins/browser. */
  bundledDir?: string;
  /** Defaults to tabgate's node_modules and `$TABGATE_HOME/node_modules`. */
  nodeModulesDirs?: readonly string[];
}

export interface Discovery {
  registry: ProviderRegistry;
  plugins: LoadedPlugin[];
  diagnostics: PluginDiagnostic[];
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

function npmPluginDirs(pkgDir: string, report: (d: PluginDiagnostic) => void): string[] {
  let manifest: unknown;
  try {
    manifest = JSON.parse(readFileSync(path.join(pkgDir, 'package.json'), 'utf8'));
  } catch {
    return [];
  }
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
  const base: ProviderContext = {
    env: options.env,
    log: options.log,
    config: (name) => options.providerConfig?.[name] ?? {},
  };
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
  const load = async (dir: string, source: PluginSource) => {
    const result = await loadPlugin(dir, source, registry, base);
    result.diagnostics.forEach(report);
    if (result.loaded) plugins.push(result.loaded);
  };

  for (const dir of subdirectories(options.bundledDir ?? BUNDLED_PLUGINS_DIR)) await load(dir, 'bundled');

  const enabled = new Set(options.enabled ?? []);
  if (options.home) {
    for (const dir of subdirectories(path.join(options.home, 'plugins', 'browser'))) {
      const name = declaredName(dir);
      if (enabled.has(path.basename(dir)) || (name !== undefined && enabled.has(name)))
        await load(dir, 'user');
      else options.log.debug('browser plugin not enabled (add it to plugins.enabled)', { path: dir });
    }
  }

  const nodeModules = options.nodeModulesDirs ?? [
    path.join(PACKAGE_ROOT, 'node_modules'),
    ...(options.home ? [path.join(options.home, 'node_modules')] : []),
  ];
  for (const modules of nodeModules) {
    for (const pkg of packages(modules)) {
      for (const dir of npmPluginDirs(pkg, report)) await load(dir, 'npm');
    }
  }
  return { registry, plugins, diagnostics };
}
