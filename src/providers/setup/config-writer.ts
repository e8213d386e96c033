/**
 * Writes one key into `$TABGATE_HOME/config.yaml` without disturbing the rest: the YAML Document API
 * keeps the user's comments, order and formatting. The file is replaced atomically, 0600 whatever its
 * mode was: config.yaml may hold the API key, and only its owner needs to read it.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, parseDocument, type Document } from 'yaml';

export class ConfigWriteError extends Error {
  override readonly name = 'ConfigWriteError';
}

export function setConfigValue(file: string, keyPath: [string, ...string[]], value: unknown): void {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const doc: Document = parseDocument(text);
  if (doc.errors.length > 0) {
    throw new ConfigWriteError(
      `${file} is not valid YAML, so it was left untouched: ${doc.errors[0]?.message ?? ''}`,
    );
  }
  if (doc.contents === null || (isScalar(doc.contents) && doc.contents.value === null)) {
    doc.contents = doc.createNode({});
  }
  if (!isMap(doc.contents))
    throw new ConfigWriteError(`${file} must hold a mapping of keys; it was left untouched`);
  // Walk down, creating maps where a section is missing or empty (`browser:` with nothing under it).
  for (let depth = 1; depth < keyPath.length; depth++) {
    const parent = keyPath.slice(0, depth);
    const node: unknown = doc.getIn(parent, true);
    if (node === undefined || (isScalar(node) && node.value === null)) doc.setIn(parent, doc.createNode({}));
    else if (!isMap(node))
      throw new ConfigWriteError(`${parent.join('.')} in ${file} is not a mapping; it was left untouched`);
  }
  doc.setIn(keyPath, value);
  const mode = 0o600;
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, doc.toString(), { mode });
  chmodSync(temp, mode);
  renameSync(temp, file);
}
