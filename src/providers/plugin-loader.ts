/**
 * Loads one plugin folder: validates plugin.yaml, imports the entry, runs `register(ctx)` and commits the
 * providers it registered. All or nothing: a manifest error, an entry that fails to import or throws, or
 * a provider not declared in `provides_browser_providers` leaves the registry untouched for that plugin,
 * and is returned as a diagnostic instead of stopping the gateway.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { z } from 'zod';
import type { ProviderContext } from './api.js';
import type { PluginContext, PluginModule } from './plugin-context.js';
import { BUNDLED_PROVIDERS } from './bundled/index.js';
import { ProviderApiError, ProviderNotConfiguredError } from './errors.js';
import { GuardedProvider } from './guarded-provider.js';
import { readManifest } from './manifest.js';
import { pluginProviderProblem, type PluginProvider } from './plugin-provider.js';
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

export interface LoadOptions {
  /** `browser.provider_timeout_s` in milliseconds: the deadline of every createSession. */
  createTimeoutMs: number;
}

/** Checks a provider's section against its own schema: the parsed value, or the problems by key. */
function validateSection(provider: PluginProvider, section: Readonly<Record<string, unknown>>) {
  if (!provider.configSchema) return { value: section };
  const parsed = provider.configSchema.safeParse(section);
  if (parsed.success) {
    const data = parsed.data;
    return { value: typeof data === 'object' && data !== null ? (data as Record<string, unknown>) : section };
  }
  const key = `browser.${provider.name.replace(/-/g, '_')}`;
  const problems = (parsed.error?.issues ?? []).map(
    (issue) => `${[key, ...issue.path.map(String)].join('.')}: ${issue.message}`,
  );
  return { value: section, problem: problems.join('; ') || `${key} is invalid` };
}

export async function loadPlugin(
  dir: string,
  source: PluginSource,
  registry: ProviderRegistry,
  base: ProviderContext,
  options: LoadOptions,
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

  const pending: PluginProvider[] = [];
  // Filled once the plugin's providers are known: what a schema parsed (defaults applied) is what they read.
  const sections = new Map<string, Readonly<Record<string, unknown>>>();
  const ctx: PluginContext = {
    ...base,
    config: (name) => sections.get(name.trim().toLowerCase()) ?? base.config(name),
    pluginName: plugin,
    z,
    RestBrowserProvider,
    errors: { ProviderNotConfiguredError, ProviderApiError },
    bundled: BUNDLED_PROVIDERS,
    registerBrowserProvider(provider: PluginProvider) {
      const problem = pluginProviderProblem(provider);
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
    const section = validateSection(provider, base.config(provider.name));
    sections.set(provider.name, section.value);
    if (section.problem) report('error', `config ${section.problem}; sessions are refused until it is fixed`);
    const guarded = new GuardedProvider(provider, {
      plugin,
      description: manifest.manifest.description,
      requiresEnv: manifest.manifest.requires_env ?? [],
      env: base.env,
      log: base.log,
      createTimeoutMs: options.createTimeoutMs,
      ...(manifest.manifest.post_setup ? { postSetup: manifest.manifest.post_setup } : {}),
      ...(section.problem ? { configProblem: section.problem } : {}),
    });
    const outcome = registry.register(guarded, { plugin, source, path: dir });
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
