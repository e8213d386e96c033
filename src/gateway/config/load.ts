/**
 * Defaults → `$TABGATE_HOME/config.yaml` → environment → flags, validated once into a frozen object.
 * Only this folder and `src/cli/` read the environment; everything else receives a GatewayConfig.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { formatIssues } from '../../protocol/index.js';
import type { Logger } from '../../log/logger.js';
import { configSchema, type GatewayConfig } from './schema.js';

export type Environment = Readonly<Record<string, string | undefined>>;

export interface ConfigFlags {
  host?: string;
  port?: number;
}

export interface LoadConfigOptions {
  /** Overrides TABGATE_HOME (tests use a temp dir). */
  home?: string;
  /** The environment to read; `src/cli/` passes `process.env`, tests pass what they need. */
  env?: Environment;
  flags?: ConfigFlags;
  /** Merged over the file, below env and flags: lets embedders and tests set values without a file. */
  overrides?: Record<string, unknown>;
  log?: Logger;
}

/** A configuration problem a person must fix before tabgate can start. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export function resolveHome(env: Environment, home?: string): string {
  return path.resolve(home ?? env.TABGATE_HOME ?? path.join(os.homedir(), '.tabgate'));
}

export function configPath(home: string): string {
  return path.join(home, 'config.yaml');
}

type Tree = Record<string, unknown>;
const isTree = (value: unknown): value is Tree =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Later sources win key by key; lists are replaced, not concatenated. */
function merge(base: Tree, over: Tree): Tree {
  const out: Tree = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const prior = out[key];
    out[key] = isTree(prior) && isTree(value) ? merge(prior, value) : value;
  }
  return out;
}

/** Reads and parses config.yaml; a missing or empty file is `{}`; a malformed one is a ConfigError. */
export function readConfigFile(file: string): Tree {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  let value: unknown;
  try {
    value = parseYaml(text);
  } catch (error) {
    throw new ConfigError(`${file} is not valid YAML: ${(error as Error).message}`);
  }
  if (value === null || value === undefined) return {};
  if (!isTree(value)) throw new ConfigError(`${file} must hold a mapping of keys (gateway:, browser:, …)`);
  return value;
}

function fromEnvironment(env: Environment): Tree {
  const tree: Tree = {};
  if (env.API_SERVER_KEY !== undefined) tree.gateway = { api_server: { key: env.API_SERVER_KEY } };
  if (env.BROWSER_CDP_URL) tree.browser = { cdp_url: env.BROWSER_CDP_URL };
  return tree;
}

function fromFlags(flags: ConfigFlags): Tree {
  const gateway: Tree = {};
  if (flags.host !== undefined) gateway.host = flags.host;
  if (flags.port !== undefined) gateway.port = flags.port;
  return Object.keys(gateway).length > 0 ? { gateway } : {};
}

function innerObject(schema: z.ZodType): z.ZodObject | null {
  let current: z.ZodType = schema;
  while (current instanceof z.ZodDefault || current instanceof z.ZodOptional) {
    current = current.unwrap() as z.ZodType;
  }
  return current instanceof z.ZodObject ? current : null;
}

/** Dotted paths of keys the schema does not know: typos are warned about, never fatal. */
export function unknownKeys(value: Tree, schema: z.ZodType = configSchema, prefix = ''): string[] {
  const object = innerObject(schema);
  if (!object) return [];
  const shape = object.shape as Record<string, z.ZodType>;
  const out: string[] = [];
  for (const [key, child] of Object.entries(value)) {
    const name = prefix + key;
    const childSchema = shape[key];
    if (!childSchema) out.push(name);
    else if (isTree(child)) out.push(...unknownKeys(child, childSchema, name + '.'));
  }
  return out;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

export function loadConfig(options: LoadConfigOptions = {}): GatewayConfig {
  const env = options.env ?? {};
  const home = resolveHome(env, options.home);
  const file = configPath(home);
  const fileTree = readConfigFile(file);
  for (const key of unknownKeys(fileTree)) options.log?.warn('unknown config key ignored', { key, file });
  let merged = merge(fileTree, options.overrides ?? {});
  merged = merge(merged, fromEnvironment(env));
  merged = merge(merged, fromFlags(options.flags ?? {}));
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success)
    throw new ConfigError(`invalid configuration (${file}): ${formatIssues(parsed.error.issues)}`);
  return deepFreeze({ ...parsed.data, home, chromePathFallback: env.CHROME_PATH || undefined });
}
