/**
 * What a plugin may register: the contract of api.ts, with the parts the seed calls optional left
 * optional (`displayName`, `getSetupSchema`) and the seed's compatibility aliases accepted
 * (`isConfigured` for `isAvailable`, `providerName()` / `provider_name()` for `displayName`). The
 * loader checks a registration against this shape and wraps it (guarded-provider.ts), so everything
 * behind the registry sees a full BrowserProvider.
 */
import type { ProviderSetupSchema } from './api.js';
import { PROVIDER_NAME_PATTERN } from './manifest.js';

/** A zod-compatible schema (`ctx.z` builds one): validates the provider's `browser.<name>` section. */
export interface ConfigSchemaLike {
  safeParse(value: unknown): {
    success: boolean;
    data?: unknown;
    error?: { issues: Array<{ path: PropertyKey[]; message: string }> };
  };
}

export interface PluginProvider {
  readonly name: string;
  readonly displayName?: string;
  isAvailable?(): boolean;
  isConfigured?(): boolean;
  providerName?(): string;
  provider_name?(): string;
  createSession(taskId: string): Promise<unknown>;
  closeSession(sessionId: string): Promise<boolean> | boolean;
  emergencyCleanup(sessionId: string): Promise<boolean> | boolean | void | Promise<void>;
  getSetupSchema?(): ProviderSetupSchema | null;
  /** Validates `browser.<name>`; a failure makes the provider refuse sessions with the reason. */
  readonly configSchema?: ConfigSchemaLike;
}

const REQUIRED_METHODS = ['createSession', 'closeSession', 'emergencyCleanup'] as const;

/** Why a registered value is not a provider, or null. */
export function pluginProviderProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'is not an object';
  const record = value as Record<string, unknown>;
  if (typeof record.name !== 'string' || !PROVIDER_NAME_PATTERN.test(record.name)) {
    return 'has no valid name (lowercase letters, digits, - and _)';
  }
  const missing: string[] = REQUIRED_METHODS.filter((method) => typeof record[method] !== 'function');
  if (typeof record.isAvailable !== 'function' && typeof record.isConfigured !== 'function')
    missing.push('isAvailable (or isConfigured)');
  if (record.displayName !== undefined && typeof record.displayName !== 'string')
    return `"${record.name}" has a displayName that is not a string`;
  if (record.getSetupSchema !== undefined && typeof record.getSetupSchema !== 'function')
    return `"${record.name}" has a getSetupSchema that is not a function`;
  const schema = record.configSchema;
  const parses = typeof schema === 'object' && schema !== null && 'safeParse' in schema;
  if (schema !== undefined && (!parses || typeof schema.safeParse !== 'function'))
    return `"${record.name}" has a configSchema without safeParse (build it with ctx.z)`;
  return missing.length > 0 ? `"${record.name}" lacks ${missing.join(', ')}` : null;
}
