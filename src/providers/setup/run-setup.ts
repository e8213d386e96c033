/**
 * The flow of `tabgate tools`: pick a browser, collect its env vars, then write both files at the very
 * end (credentials to `$TABGATE_HOME/.env`, the choice to `browser.cloud_provider` in config.yaml), so
 * cancelling at any prompt changes nothing. Flags (`--provider`, `--set`) take the same path for scripts.
 */
import type { Logger } from '../../log/logger.js';
import { ENV_KEY_PATTERN, envFilePath, writeEnvFile } from '../env-file.js';
import type { ProviderRegistry } from '../registry.js';
import { CAMOFOX, safelyAvailable } from '../select.js';
import { setConfigValue } from './config-writer.js';
import { runPostSetup } from './post-setup.js';
import { LOCAL_ROW_ID, pickerRows, type PickerRow } from './picker-rows.js';
import type { SetupPrompter } from './prompter.js';

/** A mistake in the flags; the CLI prints it and exits 2. */
export class SetupUsageError extends Error {
  override readonly name = 'SetupUsageError';
}

export type SetupMode =
  | { kind: 'interactive'; prompter: SetupPrompter }
  | { kind: 'flags'; provider: string; set: readonly string[] };

export interface SetupOptions {
  home: string;
  /** The environment providers read (process env plus .env); updated with what was written. */
  env: Record<string, string | undefined>;
  registry: ProviderRegistry;
  log: Logger;
  /** `browser.cloud_provider` as the file has it now. */
  current: string | undefined;
  configFile: string;
  output: NodeJS.WritableStream;
  mode: SetupMode;
}

export interface SetupResult {
  provider: string;
  /** Names only; values are never returned or printed. */
  envWritten: string[];
  available: boolean;
}

function parseAssignments(set: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const item of set) {
    const eq = item.indexOf('=');
    const key = eq > 0 ? item.slice(0, eq) : '';
    if (!ENV_KEY_PATTERN.test(key))
      throw new SetupUsageError(
        `--set expects KEY=VALUE with a variable name, got "${key || item.split('=')[0]}"`,
      );
    values[key] = item.slice(eq + 1);
  }
  return values;
}

async function interactiveAnswers(rows: PickerRow[], options: SetupOptions, prompter: SetupPrompter) {
  const initial = Math.max(
    0,
    rows.findIndex((row) => row.id === (options.current ?? LOCAL_ROW_ID)),
  );
  const row = rows[await prompter.choose(rows, initial)] ?? rows[0];
  const values: Record<string, string> = {};
  for (const envVar of row?.envVars ?? []) {
    const hasValue = Boolean(options.env[envVar.key]);
    const answer = await prompter.ask({ ...envVar, hasValue });
    if (answer !== '') values[envVar.key] = answer;
  }
  return { provider: row?.id ?? LOCAL_ROW_ID, values };
}

function flagAnswers(options: SetupOptions, provider: string, set: readonly string[]) {
  const name = provider.trim().toLowerCase();
  if (name !== LOCAL_ROW_ID && name !== CAMOFOX && !options.registry.has(name)) {
    const known = [LOCAL_ROW_ID, CAMOFOX, ...options.registry.list().map((p) => p.name)].join(', ');
    throw new SetupUsageError(`unknown provider "${provider}"; choose one of: ${known}`);
  }
  return { provider: name, values: parseAssignments(set) };
}

export async function runSetup(options: SetupOptions): Promise<SetupResult> {
  const rows = pickerRows(options.registry, options.log, options.env);
  const { provider, values } =
    options.mode.kind === 'interactive'
      ? await interactiveAnswers(rows, options, options.mode.prompter)
      : flagAnswers(options, options.mode.provider, options.mode.set);

  const envWritten = Object.keys(values);
  if (envWritten.length > 0) writeEnvFile(envFilePath(options.home), values);
  setConfigValue(options.configFile, ['browser', 'cloud_provider'], provider);
  Object.assign(options.env, values);

  const chosen = provider === LOCAL_ROW_ID ? undefined : options.registry.get(provider);
  const available = chosen
    ? safelyAvailable(chosen, options.log)
    : provider !== CAMOFOX || Boolean(options.env.CAMOFOX_URL);
  const label = rows.find((row) => row.id === provider)?.label ?? chosen?.displayName ?? provider;
  const out = options.output;
  out.write(`Browser: ${label} (browser.cloud_provider: ${provider} in ${options.configFile})\n`);
  if (envWritten.length > 0) out.write(`Saved ${envWritten.join(', ')} to ${envFilePath(options.home)}\n`);
  if (!available) {
    const missing = rows
      .find((row) => row.id === provider)
      ?.envVars.map((v) => v.key)
      .filter((key) => !options.env[key]);
    out.write(
      `Not ready yet${missing?.length ? `: set ${missing.join(', ')}` : ''}. Sessions will fail with provider_not_configured until then.\n`,
    );
  }
  const postSetup = rows.find((row) => row.id === provider)?.postSetup;
  if (postSetup) out.write(`${runPostSetup(postSetup).message}\n`);
  out.write('A running `tabgate serve` uses it for new sessions; open sessions keep their browser.\n');
  return { provider, envWritten, available };
}
