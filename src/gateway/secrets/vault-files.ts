/**
 * Where the vault lives: `$TABGATE_HOME/secrets.json` (entries, values sealed) and
 * `$TABGATE_HOME/secrets.key` (the AES key, 32 random bytes), both 0600 in the 0700 home. No OS keyring
 * is used: a key file readable only by the owner is what every platform tabgate runs on offers.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { SECRET_FIELDS, type SecretField } from '../../protocol/index.js';
import { createPrivateDir, PRIVATE_FILE_MODE } from '../security/private-files.js';
import { KEY_BYTES, type SealedValue } from './vault-crypto.js';

export const vaultFile = (home: string) => path.join(home, 'secrets.json');
export const vaultKeyFile = (home: string) => path.join(home, 'secrets.key');

export interface StoredEntry extends SealedValue {
  name: string;
  origin: string;
  field: SecretField;
  /** ISO 8601. */
  created_at: string;
}

interface VaultDocument {
  version: 1;
  secrets: StoredEntry[];
}

const FIELDS: ReadonlySet<string> = new Set(SECRET_FIELDS);

function isEntry(value: unknown): value is StoredEntry {
  if (typeof value !== 'object' || value === null) return false;
  const e = value as Record<string, unknown>;
  return (
    ['name', 'origin', 'created_at', 'iv', 'tag', 'data'].every((k) => typeof e[k] === 'string') &&
    FIELDS.has(String(e.field))
  );
}

/** The entries on disk; none when there is no vault yet. A damaged file is an error, never an empty vault. */
export function readEntries(home: string): StoredEntry[] {
  let text: string;
  try {
    text = fs.readFileSync(vaultFile(home), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const doc = JSON.parse(text) as Partial<VaultDocument>;
  if (doc.version !== 1 || !Array.isArray(doc.secrets) || !doc.secrets.every(isEntry)) {
    throw new Error(`${vaultFile(home)} is not a tabgate vault`);
  }
  return doc.secrets;
}

/** Writes a new file beside the old and renames it over, so a reader never sees half a vault. */
export function writeEntries(home: string, entries: StoredEntry[]): void {
  createPrivateDir(home);
  const target = vaultFile(home);
  const temp = `${target}.${process.pid}.tmp`;
  const fd = fs.openSync(temp, 'wx', PRIVATE_FILE_MODE);
  try {
    fs.fchmodSync(fd, PRIVATE_FILE_MODE);
    fs.writeFileSync(fd, JSON.stringify({ version: 1, secrets: entries }, null, 2) + '\n');
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, target);
}

/** The vault key; created (0600) when `create` and none exists yet. Null when absent and not created. */
export function readKey(home: string, create: boolean): Buffer | null {
  const file = vaultKeyFile(home);
  try {
    const key = Buffer.from(fs.readFileSync(file, 'utf8').trim(), 'base64');
    if (key.length !== KEY_BYTES) throw new Error(`${file} does not hold a ${KEY_BYTES}-byte key`);
    return key;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !create) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }
  createPrivateDir(home);
  const key = randomBytes(KEY_BYTES);
  const fd = fs.openSync(file, 'wx', PRIVATE_FILE_MODE);
  try {
    fs.fchmodSync(fd, PRIVATE_FILE_MODE);
    fs.writeFileSync(fd, key.toString('base64') + '\n');
  } finally {
    fs.closeSync(fd);
  }
  return key;
}
