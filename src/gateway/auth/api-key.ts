/**
 * The gateway's API key: `API_SERVER_KEY`, else `gateway.api_server.key`, else a key generated at first
 * start (32 random bytes, base64url) stored in `$TABGATE_HOME/api_key` with mode 0600. The key is
 * compared in constant time and never logged; `tabgate key` is the only thing that prints it.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { GatewayConfig } from '../config/index.js';

export const API_KEY_FILE = 'api_key';

export type ApiKeySource = 'configured' | 'file' | 'generated' | 'none';

export interface ResolvedApiKey {
  /** Null when the key is explicitly configured as empty: only other credentials can authenticate. */
  key: string | null;
  source: ApiKeySource;
  /** Where the key is stored when it came from (or went to) the key file. */
  file: string;
}

export function apiKeyFile(home: string): string {
  return path.join(home, API_KEY_FILE);
}

function readKeyFile(file: string): string | null {
  try {
    const text = fs.readFileSync(file, 'utf8').trim();
    return text.length > 0 ? text : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** Resolves the key, creating the key file on first start when nothing is configured. */
export function resolveApiKey(config: GatewayConfig, options: { create?: boolean } = {}): ResolvedApiKey {
  const file = apiKeyFile(config.home);
  const configured = config.gateway.api_server.key;
  if (configured !== undefined) {
    return {
      key: configured.length > 0 ? configured : null,
      source: configured ? 'configured' : 'none',
      file,
    };
  }
  const stored = readKeyFile(file);
  if (stored) return { key: stored, source: 'file', file };
  if (options.create === false) return { key: null, source: 'none', file };
  fs.mkdirSync(config.home, { recursive: true, mode: 0o700 });
  const key = randomBytes(32).toString('base64url');
  try {
    // `wx`: of two first starts racing, one writes and the other reads what it wrote.
    fs.writeFileSync(file, key + '\n', { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return { key: readKeyFile(file), source: 'file', file };
  }
  return { key, source: 'generated', file };
}

// One-shot: no Hash stream object per request.
const digest = (value: string): Buffer => hash('sha256', value, 'buffer');

/**
 * Whether a presented string equals an expected one, in time that depends on the expected one's length
 * only: every character is compared, whatever the first difference.
 */
export function sameSecret(presented: string, expected: string): boolean {
  let difference = presented.length ^ expected.length;
  // Past the presented string's end, charCodeAt is NaN and `| 0` makes it 0: still a difference.
  for (let i = 0; i < expected.length; i++)
    difference |= (presented.charCodeAt(i) | 0) ^ expected.charCodeAt(i);
  return difference === 0;
}

/** Constant-time comparison: both sides are hashed first, so lengths leak nothing either. */
export function secretsEqual(presented: string, expected: string): boolean {
  return timingSafeEqual(digest(presented), digest(expected));
}

/** Holds the expected key only as its digest, so a heap dump of the verifier shows no key. */
export class ApiKeyVerifier {
  private readonly expected: Buffer | null;

  constructor(key: string | null) {
    this.expected = key === null ? null : digest(key);
  }

  get configured(): boolean {
    return this.expected !== null;
  }

  verify(presented: string): boolean {
    if (this.expected === null) return false;
    return timingSafeEqual(digest(presented), this.expected);
  }
}
