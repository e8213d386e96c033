/**
 * Defaults → `$TABGATE_HOME/config.yaml` → environment → flags, validated once into a frozen object.
 * Only this folder and `src/cli/` read the environment; everything else receives a GatewayConfig.
 */
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { Logger } from '../../log/logger.js';
import { ConfigError, DANGEROUS_KEYS, readConfigDocument } from './config-file.js';
import { isPluginSectionPath, pluginSectionsOf } from './plugin-sections.js';
import { configSchema, type GatewayConfig } from './schema.js';

export { ConfigError, readConfigFile } from './config-file.js';

export type Environment = Readonly<Record<string, string | undefined>>;

export interface ConfigFlags {
  host?: string;
  port?: number;
  /** `--store`: the store's URL. */
  store?: string;
  /** `--cluster redis://HOST:PORT`. */
  cluster?: string;
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
    // Overrides come from code, not the file; still, an assignment to `__proto__` would set a prototype.
    if (DANGEROUS_KEYS.has(key)) continue;
    const prior = out[key];
    out[key] = isTree(prior) && isTree(value) ? merge(prior, value) : value;
  }
  return out;
}

function fromEnvironment(env: Environment): Tree {
  const tree: Tree = {};
  if (env.API_SERVER_KEY !== undefined) tree.gateway = { api_server: { key: env.API_SERVER_KEY } };
  if (env.BROWSER_CDP_URL) tree.browser = { cdp_url: env.BROWSER_CDP_URL };
  if (env.TABGATE_STORE_URL) tree.store = { url: env.TABGATE_STORE_URL };
  if (env.TABGATE_REDIS_URL) tree.cluster = { redis_url: env.TABGATE_REDIS_URL };
  return tree;
}

function fromFlags(flags: ConfigFlags): Tree {
  const gateway: Tree = {};
  if (flags.host !== undefined) gateway.host = flags.host;
  if (flags.port !== undefined) gateway.port = flags.port;
  const tree: Tree = Object.keys(gateway).length > 0 ? { gateway } : {};
  if (flags.store !== undefined) tree.store = { url: flags.store };
  if (flags.cluster !== undefined) tree.cluster = { redis_url: flags.cluster };
  return tree;
}

function innerObject(schema: z.ZodType): z.ZodObject | null {
  let current: z.ZodType = schema;
  while (current instanceof z.ZodDefault || current instanceof z.ZodOptional) {
    current = current.unwrap() as z.ZodType;
  }
  return current instanceof z.ZodObject ? current : null;
}

/** Paths of keys the schema does not know: typos are warned about, never fatal. */
export function unknownKeys(
  value: Tree,
  schema: z.ZodType = configSchema,
  prefix: string[] = [],
): string[][] {
  const object = innerObject(schema);
  if (!object) return [];
  const shape = object.shape as Record<string, z.ZodType>;
  const out: string[][] = [];
  for (const [key, child] of Object.entries(value)) {
    const path = [...prefix, key];
    const childSchema = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!childSchema) out.push(path);
    else if (isTree(child)) out.push(...unknownKeys(child, childSchema, path));
  }
  return out;
}

/** The tree without the keys at these paths. */
function without(tree: Tree, paths: readonly string[][]): Tree {
  const out = structuredClone(tree);
  for (const path of paths) {
    let parent: unknown = out;
    for (const key of path.slice(0, -1)) parent = isTree(parent) ? parent[key] : undefined;
    if (isTree(parent)) delete parent[path.at(-1) ?? ''];
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
  const source = readConfigDocument(file);
  for (const { key, at } of source.dropped)
    options.log?.warn('config key that could reach a prototype ignored', { key, at, file });
  const unknown = unknownKeys(source.tree);
  // Elsewhere a typo is only warned about; in the safety policy it could drop a rule, so it stops.
  const unknownSafety = unknown.filter((path) => path[0] === 'safety');
  if (unknownSafety.length > 0) {
    const problems = unknownSafety.map((path) => {
      const at = source.locate(path);
      return `${path.join('.')}${at ? ` (${at})` : ''}: unknown key in the safety policy`;
    });
    throw new ConfigError(`invalid configuration in ${file}: ${problems.join('; ')}`);
  }
  // `browser.<plugin>` mappings wait for discovery, which knows the installed plugins.
  const pluginSections = pluginSectionsOf(source.tree, unknown);
  for (const path of unknown)
    if (!isPluginSectionPath(path, pluginSections[path[1] ?? '']))
      options.log?.warn('unknown config key ignored', { key: path.join('.'), at: source.locate(path), file });
  let merged = merge(without(source.tree, unknown), options.overrides ?? {});
  merged = merge(merged, fromEnvironment(env));
  merged = merge(merged, fromFlags(options.flags ?? {}));
  const parsed = configSchema.safeParse(merged);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const key = issue.path.map(String).join('.') || '(top level)';
      const at = source.locate(issue.path);
      return `${key}${at ? ` (${at})` : ''}: ${issue.message}`;
    });
    throw new ConfigError(`invalid configuration in ${file}: ${problems.join('; ')}`);
  }
  return deepFreeze({
    ...parsed.data,
    home,
    chromePathFallback: env.CHROME_PATH || undefined,
    pluginSections: structuredClone(pluginSections),
  });
}
