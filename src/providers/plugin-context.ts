/**
 * What a plugin entry's `register(ctx)` receives: the provider context plus the means to register a
 * provider, and the building blocks tabgate lends to plugins (the REST base class, the typed errors,
 * the bundled implementations) so that no plugin imports tabgate by path. Apart from api.ts, which the
 * bundled providers themselves implement, so the contract never depends on its implementations.
 */
import type { z } from 'zod';
import type { ProviderContext } from './api.js';
import type { BundledProviderFactories } from './bundled/index.js';
import type { ProviderApiError, ProviderNotConfiguredError } from './errors.js';
import type { PluginProvider } from './plugin-provider.js';
import type { RestBrowserProvider } from './rest-provider.js';

/** The argument of a plugin entry's `register(ctx)`. */
export interface PluginContext extends ProviderContext {
  /** The plugin's `name` from plugin.yaml. */
  readonly pluginName: string;
  /**
   * Registers a provider (a BrowserProvider; `displayName` and `getSetupSchema` may be left out, and
   * `isConfigured` stands for `isAvailable`). A `configSchema` built with `ctx.z` validates its section.
   */
  registerBrowserProvider(provider: PluginProvider): void;
  /** tabgate's zod, to build a `configSchema` without depending on it. */
  readonly z: typeof z;
  /** A base class for REST cloud providers: fetch with timeouts, JSON, secret redaction, never-throwing close. */
  readonly RestBrowserProvider: typeof RestBrowserProvider;
  readonly errors: {
    ProviderNotConfiguredError: typeof ProviderNotConfiguredError;
    ProviderApiError: typeof ProviderApiError;
  };
  /** The implementations of the bundled providers, compiled with tabgate (used by plugins/browser/*). */
  readonly bundled: BundledProviderFactories;
}

/** The shape of a plugin entry module. */
export interface PluginModule {
  register(ctx: PluginContext): void | Promise<void>;
}
