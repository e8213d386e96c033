/**
 * `$TABGATE_HOME/.env`: where `tabgate tools` keeps provider credentials, loaded at gateway start. The
 * file is private (0600, rewritten atomically), values are double-quoted with escapes so any string
 * survives a round trip, and writing replaces the named keys in place while keeping every other line.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { TabgateError } from '../protocol/index.js';

export const ENV_KEY_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/;

export function envFilePath(home: string): string {
  return path.join(home, '.env');
}

function unquote(raw: string): string {
  if (raw.startsWith('"') && raw.endsWith('"') && raw.length >= 2) {
    return raw
      .slice(1, -1)
      .replace(/\\(["\\nrt$])/g, (_, c: string) => ({ n: '\n', r: '\r', t: '\t' })[c] ?? c);
  }
  if (raw.startsWith("'") && raw.endsWith("'") && raw.length >= 2) return raw.slice(1, -1);
  // Unquoted: an inline comment starts at " #".
  return raw.replace(/\s+#.*$/, '');
}

export function quoteEnvValue(value: string): string {
  const escaped = value.replace(
    /[\\"$\n\r\t]/g,
    (c) => ({ '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c] ?? `\\${c}`,
  );
  return `"${escaped}"`;
}

export function parseEnvText(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    if (/^\s*(#|$)/.test(line)) continue;
    const match = LINE.exec(line);
    if (match?.[1] !== undefined) values[match[1]] = unquote(match[2] ?? '');
  }
  return values;
}

/** The file's values, or {} when it does not exist. */
export function readEnvFile(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  return parseEnvText(readFileSync(file, 'utf8'));
}

/**
 * Sets (or with `undefined`, removes) keys, keeping all other lines and comments. Written to a temp file
 * with mode 0600 and renamed, so a crash never leaves a half-written or world-readable file.
 */
export function writeEnvFile(file: string, updates: Readonly<Record<string, string | undefined>>): void {
  for (const key of Object.keys(updates)) {
    if (!ENV_KEY_PATTERN.test(key)) {
      throw new TabgateError(
        'invalid_request',
        `${JSON.stringify(key)} is not a valid environment variable name`,
      );
    }
  }
  const lines = existsSync(file) ? readFileSync(file, 'utf8').replace(/\n$/, '').split(/\r?\n/) : [];
  const pending = new Map(Object.entries(updates));
  const out: string[] = [];
  for (const line of lines) {
    const key = LINE.exec(line)?.[1];
    if (key === undefined || /^\s*#/.test(line) || !pending.has(key)) {
      out.push(line);
      continue;
    }
    const value = pending.get(key);
    pending.delete(key);
    if (value !== undefined) out.push(`${key}=${quoteEnvValue(value)}`);
  }
  for (const [key, value] of pending) if (value !== undefined) out.push(`${key}=${quoteEnvValue(value)}`);
  mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, out.length > 0 ? out.join('\n') + '\n' : '', { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

/**
 * Loads `$TABGATE_HOME/.env` into `target` at gateway start. Values already set in `target` (the real
 * environment) win, as with every dotenv loader. Returns the keys it set; never their values.
 */
export function loadHomeEnv(home: string, target: Record<string, string | undefined>): string[] {
  const loaded: string[] = [];
  for (const [key, value] of Object.entries(readEnvFile(envFilePath(home)))) {
    if (target[key] === undefined || target[key] === '') {
      target[key] = value;
      loaded.push(key);
    }
  }
  return loaded;
}
