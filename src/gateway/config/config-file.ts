/**
 * config.yaml as a document: parsed with positions, so every warning and error can name the key and the
 * line a person must look at. Keys that could reach an object's prototype (`__proto__`, `constructor`,
 * `prototype`) are dropped while the tree is built, with a warning: the plain objects handed on never
 * hold them, so no later merge or lookup can pick up an inherited value.
 */
import fs from 'node:fs';
import { isMap, isScalar, LineCounter, parseDocument, type Document } from 'yaml';

type Tree = Record<string, unknown>;

/** A configuration problem a person must fix before tabgate can start. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

export const DANGEROUS_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export interface ConfigFile {
  /** The file's keys as plain objects, dangerous keys left out; `{}` for a missing or empty file. */
  tree: Tree;
  /** Dotted paths of the keys left out, with where they are. */
  dropped: { key: string; at: string | null }[];
  /** `line L, column C` of a key path in the file, or null when the file does not hold it. */
  locate(path: readonly PropertyKey[]): string | null;
}

const isTree = (value: unknown): value is Tree =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * A copy made of own data properties only, without the dangerous keys (at any depth). A YAML alias may
 * name the node it sits in (`a: &x [*x]`), which the YAML library hands back as a cycle: `circular` is
 * told where, since no configuration value is infinite.
 */
function cleaned(
  value: unknown,
  path: string[],
  dropped: string[][],
  circular: (path: string[]) => never,
  above = new Set<object>(),
): unknown {
  if (typeof value !== 'object' || value === null) return value;
  if (above.has(value)) circular(path);
  above.add(value);
  let out: unknown;
  if (Array.isArray(value)) {
    out = value.map((item, i) => cleaned(item, [...path, String(i)], dropped, circular, above));
  } else {
    const copy: Tree = {};
    for (const key of Object.keys(value)) {
      if (DANGEROUS_KEYS.has(key)) {
        dropped.push([...path, key]);
        continue;
      }
      copy[key] = cleaned((value as Tree)[key], [...path, key], dropped, circular, above);
    }
    out = copy;
  }
  above.delete(value);
  return out;
}

function locator(doc: Document, lines: LineCounter) {
  return (path: readonly PropertyKey[]): string | null => {
    // The key's own position is what a person looks for; fall back to the value's.
    const parent = path.length > 1 ? doc.getIn(path.slice(0, -1), true) : doc.contents;
    const last = path.at(-1);
    let offset: number | undefined;
    if (isMap(parent)) {
      const pair = parent.items.find((item) => isScalar(item.key) && String(item.key.value) === String(last));
      if (pair && isScalar(pair.key)) offset = pair.key.range?.[0];
    }
    if (offset === undefined) {
      const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
      offset = node?.range?.[0];
    }
    if (offset === undefined) return null;
    const { line, col } = lines.linePos(offset);
    return `line ${line}, column ${col}`;
  };
}

export function parseConfigText(text: string, file: string): ConfigFile {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  const [error] = doc.errors;
  if (error) throw new ConfigError(`${file} is not valid YAML: ${error.message}`);
  const locate = locator(doc, lines);
  const value: unknown = doc.toJS({ maxAliasCount: 100 });
  if (value === null || value === undefined) return { tree: {}, dropped: [], locate };
  if (!isTree(value)) throw new ConfigError(`${file} must hold a mapping of keys (gateway:, browser:, …)`);
  const droppedPaths: string[][] = [];
  const circular = (path: string[]): never => {
    const at = locate(path);
    throw new ConfigError(
      `${file}: ${path.join('.') || '(top level)'}${at ? ` (${at})` : ''} holds a YAML alias of a value it is part of`,
    );
  };
  const tree = cleaned(value, [], droppedPaths, circular) as Tree;
  return {
    tree,
    dropped: droppedPaths.map((path) => ({ key: path.join('.'), at: locate(path) })),
    locate,
  };
}

/** Reads and parses config.yaml; a missing file is `{}`; a malformed one is a ConfigError. */
export function readConfigDocument(file: string): ConfigFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { tree: {}, dropped: [], locate: () => null };
    throw new ConfigError(`cannot read ${file}: ${(error as Error).message}`);
  }
  return parseConfigText(text, file);
}

/** The file's keys only (dangerous ones left out), for readers that need no positions. */
export function readConfigFile(file: string): Tree {
  return readConfigDocument(file).tree;
}
