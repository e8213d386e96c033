/**
 * Loads one plugin folder: validates plugin.yaml, imports the entry, runs `register(ctx)` and commits the
 * providers it registered. All or nothing: a manifest error, an entry that fails to import or throws, or
 * a provider not declared in `provides_browser_providers` leaves the registry untouched for that plugin,
 * and is returned as a diagnostic instead of stopping the gateway.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { BrowserProvider, ProviderContext } from './api.js';
import type { PluginContext, PluginModule } from './plugin-context.js';
import { BUNDLED_PROVIDERS } from './bundled/index.js';
import { ProviderApiError, ProviderNotConfiguredError } from './errors.js';
import { PROVIDER_NAME_PATTERN, readManifest } from './manifest.js';
import type { PluginSource, ProviderRegistry } from './registry.js';
import { RestBrowserProvider } from './rest-provider.js';

export interface PluginDiagnostic {
  /** The plugin's name (from plugin.yaml, else its folder name). */
  plugin: string;
  source: PluginSource;
  path: string;
  level: 'error' | 'warning';
  message: string;
}

export interface LoadedPlugin {
  name: string;
  version: string;
  source: PluginSource;
  path: string;
  providers: string[];
}

/** How long a plugin's `register` may take before it is given up on (it must not block start). */
const REGISTER_TIMEOUT_MS = 5_000;

const PROVIDER_METHODS = [
  'isAvailable',
  'createSession',
  'closeSession',
  'emergencyCleanup',
  'getSetupSchema',
] as const;

function shapeProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'is not an object';
  const record = value as Record<string, unknown>;
  if (typeof record.name !== 'string' || !PROVIDER_NAME_PATTERN.test(record.name)) {
    return 'has no valid name (lowercase letters, digits, - and _)';
  }
  if (typeof record.displayName !== 'string') return `"${record.name}" has no displayName`;
  const missing = PROVIDER_METHODS.filter((method) => typeof record[method] !== 'function');
  return missing.length > 0 ? `"${record.name}" lacks ${missing.join(', ')}` : null;
}

function entryPath(dir: string, entry: string | undefined): string | null {
  const candidates = entry ? [entry] : ['index.js', 'index.mjs'];
  for (const candidate of candidates) {
    const full = path.resolve(dir, candidate);
    // The entry must live inside the plugin folder.
    if (path.relative(dir, full).startsWith('..')) return null;
    if (existsSync(full)) return full;
  }
  return null;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function loadPlugin(
  dir: string,
  source: PluginSource,
  registry: ProviderRegistry,
  base: ProviderContext,
): Promise<{ loaded?: LoadedPlugin; diagnostics: PluginDiagnostic[] }> {
  const diagnostics: PluginDiagnostic[] = [];
  let plugin = path.basename(dir);
  const report = (level: PluginDiagnostic['level'], message: string) =>
    diagnostics.push({ plugin, source, path: dir, level, message });

  const manifest = await readManifest(dir);
  if (!manifest.ok) {
    report('error', manifest.message);
    return { diagnostics };
  }
  plugin = manifest.manifest.name;
  const declared = new Set(manifest.manifest.provides_browser_providers);
  const entry = entryPath(dir, manifest.manifest.entry);
  if (entry === null) {
    report('error', `entry module ${manifest.manifest.entry ?? 'index.js'} not found in the plugin folder`);
    return { diagnostics };
  }

  const pending: BrowserProvider[] = [];
  const ctx: PluginContext = {
    ...base,
    pluginName: plugin,
    RestBrowserProvider,
    errors: { ProviderNotConfiguredError, ProviderApiError },
    bundled: BUNDLED_PROVIDERS,
    registerBrowserProvider(provider: BrowserProvider) {
      const problem = shapeProblem(provider);
      if (problem) throw new Error(`registerBrowserProvider: the provider ${problem}`);
      if (!declared.has(provider.name)) {
        throw new Error(
          `registerBrowserProvider: "${provider.name}" is not listed in provides_browser_providers`,
        );
      }
      pending.push(provider);
    },
  };

  try {
    const mod = (await import(pathToFileURL(entry).href)) as { register?: unknown; default?: unknown };
    const candidate = typeof mod.register === 'function' ? mod.register : mod.default;
    if (typeof candidate !== 'function') {
      report('error', `${path.basename(entry)} does not export a register(ctx) function`);
      return { diagnostics };
    }
    const register = candidate as PluginModule['register'];
    await withTimeout(Promise.resolve(register(ctx)), REGISTER_TIMEOUT_MS, 'register(ctx)');
  } catch (error) {
    report('error', `loading failed: ${error instanceof Error ? error.message : String(error)}`);
    return { diagnostics };
  }

  const providers: string[] = [];
  for (const provider of pending) {
    const outcome = registry.register(provider, { plugin, source, path: dir });
    if (!outcome.ok) report('error', outcome.reason);
    else {
      providers.push(provider.name);
      if (outcome.replaced) {
        report(
          'warning',
          `replaces the ${outcome.replaced.source} provider "${provider.name}" of plugin "${outcome.replaced.plugin}"`,
        );
      }
    }
  }
  for (const name of declared) {
    if (!pending.some((provider) => provider.name === name)) {
      report('warning', `declares provider "${name}" but did not register it`);
    }
  }
  return {
    loaded: { name: plugin, version: manifest.manifest.version, source, path: dir, providers },
    diagnostics,
  };
}
