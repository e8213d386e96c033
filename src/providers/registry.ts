/**
 * The registered browser providers, by name. Bundled providers come first; a user or npm plugin that
 * provides the same name replaces the bundled one (that is how users patch a vendor integration), but two
 * third-party plugins claiming one name is a conflict: the first keeps it and the second is reported.
 */
import type { BrowserProvider } from './api.js';

export type PluginSource = 'bundled' | 'user' | 'npm';

export interface ProviderOrigin {
  plugin: string;
  source: PluginSource;
  /** The plugin folder. */
  path: string;
}

export interface RegisteredProvider {
  provider: BrowserProvider;
  origin: ProviderOrigin;
}

export type RegisterOutcome = { ok: true; replaced?: ProviderOrigin } | { ok: false; reason: string };

export class ProviderRegistry {
  private readonly entries = new Map<string, RegisteredProvider>();

  register(provider: BrowserProvider, origin: ProviderOrigin): RegisterOutcome {
    const existing = this.entries.get(provider.name);
    if (existing && existing.origin.source !== 'bundled') {
      return {
        ok: false,
        reason: `provider "${provider.name}" is already provided by plugin "${existing.origin.plugin}" (${existing.origin.path})`,
      };
    }
    this.entries.set(provider.name, { provider, origin });
    return existing ? { ok: true, replaced: existing.origin } : { ok: true };
  }

  /** Names are matched case-insensitively, since users type them into config. */
  get(name: string): BrowserProvider | undefined {
    return this.entries.get(name.trim().toLowerCase())?.provider;
  }

  origin(name: string): ProviderOrigin | undefined {
    return this.entries.get(name.trim().toLowerCase())?.origin;
  }

  has(name: string): boolean {
    return this.get(name) !== undefined;
  }

  /** In registration order: bundled first, then user, then npm plugins. */
  list(): BrowserProvider[] {
    return [...this.entries.values()].map((entry) => entry.provider);
  }
}
