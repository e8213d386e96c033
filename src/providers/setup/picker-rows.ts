/**
 * The rows of `tabgate tools`: the local Chromium first, then every registered provider that has a setup
 * schema (a provider returning null stays out), each with its badge, tag and current availability.
 */
import type { Logger } from '../../log/logger.js';
import type { SetupEnvVar } from '../api.js';
import type { ProviderRegistry } from '../registry.js';
import { CAMOFOX, safelyAvailable } from '../select.js';

export const LOCAL_ROW_ID = 'local';

export interface PickerRow {
  /** `local` or the provider name written to `browser.cloud_provider`. */
  id: string;
  label: string;
  badge: string;
  tag: string;
  available: boolean;
  envVars: Array<SetupEnvVar & { secret: boolean }>;
  postSetup?: string;
}

/** Names that look like credentials are hidden while typed unless the schema says otherwise. */
export function isSecretVar(envVar: SetupEnvVar): boolean {
  return envVar.secret ?? /KEY|TOKEN|SECRET|PASSWORD/i.test(envVar.key);
}

export function pickerRows(
  registry: ProviderRegistry,
  log: Logger,
  env: Readonly<Record<string, string | undefined>> = {},
): PickerRow[] {
  const rows: PickerRow[] = [
    {
      id: LOCAL_ROW_ID,
      label: 'Local Chromium',
      badge: 'free',
      tag: 'Headless Chromium on this machine (default)',
      available: true,
      envVars: [],
    },
  ];
  for (const provider of registry.list()) {
    let schema;
    try {
      schema = provider.getSetupSchema();
    } catch (error) {
      log.warn('getSetupSchema failed; provider left out of the picker', {
        provider: provider.name,
        error: error instanceof Error ? error.message : String(error),
      });
      continue;
    }
    if (schema === null) continue;
    const row: PickerRow = {
      id: provider.name,
      label: schema.name || provider.displayName,
      badge: schema.badge,
      tag: schema.tag,
      available: safelyAvailable(provider, log),
      envVars: schema.env_vars.map((envVar) => ({ ...envVar, secret: isSecretVar(envVar) })),
    };
    if (schema.post_setup) row.postSetup = schema.post_setup;
    rows.push(row);
  }
  rows.push(camofoxRow(env));
  return rows;
}

/** Camofox is not a provider plugin (tabgate drives it over its own REST API, not CDP), but is chosen the same way. */
function camofoxRow(env: Readonly<Record<string, string | undefined>>): PickerRow {
  return {
    id: CAMOFOX,
    label: 'Camofox',
    badge: 'self-hosted',
    tag: 'Anti-detection Firefox served over a REST API',
    available: Boolean(env.CAMOFOX_URL),
    envVars: [
      { key: 'CAMOFOX_URL', prompt: 'Camofox server URL (e.g. http://localhost:9377)', secret: false },
      { key: 'CAMOFOX_API_KEY', prompt: 'Camofox API key (empty if none)', secret: true },
    ],
  };
}
