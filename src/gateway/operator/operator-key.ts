/**
 * The operator key: the gateway owner's own credential, apart from the API key that agents hold. It is
 * generated at first start (32 random bytes) into `$TABGATE_HOME/operator_key`, mode 0600, and read only
 * by the owner's CLI (`tabgate pair`, `tabgate sign-in`). It is never taken from the environment or the
 * config file, which agents are commonly given; nothing prints it.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

export const OPERATOR_KEY_FILE = 'operator_key';
/** Recognisable in a leak report, and never mistaken for an API key or a pairing token. */
const PREFIX = 'tgo_';

export const operatorKeyFile = (home: string): string => path.join(home, OPERATOR_KEY_FILE);

export function readOperatorKey(home: string): string | null {
  try {
    const text = fs.readFileSync(operatorKeyFile(home), 'utf8').trim();
    return text.startsWith(PREFIX) ? text : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The stored key, created on first start. */
export function ensureOperatorKey(home: string): string {
  const stored = readOperatorKey(home);
  if (stored) return stored;
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const key = PREFIX + randomBytes(32).toString('base64url');
  try {
    // `wx`: of two first starts racing, one writes and the other reads what it wrote.
    fs.writeFileSync(operatorKeyFile(home), key + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const raced = readOperatorKey(home);
    if (!raced) throw new Error(`${operatorKeyFile(home)} holds no operator key; delete it and start again`);
    return raced;
  }
  return key;
}
