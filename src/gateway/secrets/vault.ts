/**
 * The owner's vault of secrets the model never sees. The owner's CLI adds, lists and removes entries
 * on the files directly (`tabgate secrets`); the gateway only reads them, for a fill and to keep values
 * out of everything it sends or writes. No route serves the vault, so no credential of an agent can
 * list, read or change it. The gateway re-reads the files when they change, so an added secret works
 * without a restart; a watch on the home folder says when they may have, so an unchanged vault costs no
 * `stat` per call (it is looked at three times a call: as the call starts, as it ends, as it is logged).
 */
import fs from 'node:fs';
import { silentLogger, type Logger } from '../../log/logger.js';
import { FileWatch } from '../config/file-watch.js';
import {
  SECRET_FIELDS,
  SECRET_NAME_PATTERN,
  TabgateError,
  type SecretField,
  type SecretFill,
} from '../../protocol/index.js';
import { open, seal } from './vault-crypto.js';
import { readEntries, readKey, vaultFile, writeEntries, type StoredEntry } from './vault-files.js';

/** Shorter values would be found by chance in ordinary text, and redacting them would garble it. */
export const MIN_SECRET_CHARS = 4;
export const MAX_SECRET_CHARS = 4096;

export interface SecretListing {
  name: string;
  origin: string;
  field: SecretField;
  created_at: string;
}

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** `https://host[:port]` exactly (plain http only for this computer's own names), or an Error. */
export function normaliseOrigin(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error(
      `--origin must be an origin like https://accounts.example.com, not ${JSON.stringify(raw)}`,
    );
  }
  const bare = url.pathname === '/' && !url.search && !url.hash && !url.username && !url.password;
  if (!bare || raw.replace(/\/$/, '') !== url.origin.replace(/\/$/, '')) {
    throw new Error(`--origin must be a bare origin (scheme, host, port), like ${url.origin}`);
  }
  if (url.protocol === 'https:') return url.origin;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return url.origin;
  throw new Error('--origin must use https (plain http only for localhost and 127.0.0.1)');
}

export function checkName(name: string): string {
  if (!SECRET_NAME_PATTERN.test(name)) {
    throw new Error(
      'a secret name starts with a letter and has up to 64 letters, digits, dots, dashes or underscores',
    );
  }
  return name;
}

export function checkField(field: string): SecretField {
  if (!(SECRET_FIELDS as readonly string[]).includes(field)) {
    throw new Error(`--field must be one of ${SECRET_FIELDS.join(', ')}`);
  }
  return field as SecretField;
}

/** The vault as read at one moment: each fill by name, and all of them in one frozen array. */
export interface VaultContents {
  readonly fills: ReadonlyMap<string, SecretFill>;
  /** The same array until the vault's files change, so what is derived from it can be kept as long. */
  readonly all: readonly SecretFill[];
}

/** `unknown_secret` for a name the vault does not hold (and nothing else about the vault). */
export function resolveFill(contents: VaultContents, name: string): SecretFill {
  const fill = contents.fills.get(name);
  if (!fill) {
    throw new TabgateError(
      'unknown_secret',
      `No vault secret is named ${JSON.stringify(name.slice(0, 64))}; nothing was typed.`,
    );
  }
  return fill;
}

export class Vault {
  private cache: { stamp: string; contents: VaultContents } | null = null;
  /** Made at the first `read` (the CLI's vault never needs one); null again once closed. */
  private watch: FileWatch | null = null;
  private closed = false;

  /** `log` hears about the watch of the home folder when it fails. */
  constructor(
    private readonly home: string,
    private readonly log: Logger = silentLogger,
  ) {}

  list(): SecretListing[] {
    return readEntries(this.home).map(({ name, origin, field, created_at }) => ({
      name,
      origin,
      field,
      created_at,
    }));
  }

  /** Adds or replaces an entry; the key is created at the first add. */
  add(input: { name: string; origin: string; field: SecretField; value: string }, now: Date): void {
    const name = checkName(input.name);
    const origin = normaliseOrigin(input.origin);
    const field = checkField(input.field);
    const chars = [...input.value].length;
    if (chars < MIN_SECRET_CHARS || chars > MAX_SECRET_CHARS) {
      throw new Error(`a secret's value has ${MIN_SECRET_CHARS} to ${MAX_SECRET_CHARS} characters`);
    }
    const key = readKey(this.home, true) as Buffer;
    const entry: StoredEntry = {
      name,
      origin,
      field,
      created_at: now.toISOString(),
      ...seal(key, { name, origin, field }, input.value),
    };
    writeEntries(this.home, [...readEntries(this.home).filter((e) => e.name !== name), entry]);
    // Seen by this process's next read even before the watch's event is handled.
    this.watch?.markStale();
  }

  /** Whether there was an entry of that name. */
  remove(name: string): boolean {
    const entries = readEntries(this.home);
    const kept = entries.filter((e) => e.name !== name);
    if (kept.length === entries.length) return false;
    writeEntries(this.home, kept);
    this.watch?.markStale();
    return true;
  }

  /** What one fill needs. Throws `unknown_secret` (nothing else about the vault) when there is none. */
  resolve(name: string): SecretFill {
    return resolveFill(this.read(), name);
  }

  /** Every stored secret, decrypted: what outputs and URLs are searched for. */
  all(): readonly SecretFill[] {
    return this.read().all;
  }

  /**
   * The vault as it stands now: nothing to do while the watch saw no change, one `stat` when it did
   * (or a second has passed), and the files read and decrypted again only when the CLI has rewritten
   * them. Throws `internal_error` when they cannot be read (fail closed).
   */
  read(): VaultContents {
    if (!this.closed) this.watch ??= new FileWatch(vaultFile(this.home), "the owner's vault", this.log);
    if (this.cache && this.watch && !this.watch.mustLook()) return this.cache.contents;
    const stamp = this.stamp();
    // A failed look is repeated at the next read, never trusted from the cache.
    if (stamp === null) this.watch?.markStale();
    if (stamp !== null && this.cache?.stamp === stamp) return this.cache.contents;
    const fills = new Map<string, SecretFill>();
    let entries: StoredEntry[];
    let key: Buffer | null;
    try {
      entries = stamp === 'none' ? [] : readEntries(this.home);
      key = entries.length > 0 ? readKey(this.home, false) : null;
    } catch (error) {
      // Without the values nothing can be kept out of outputs, so no call runs: fail closed, and
      // look again at the next read rather than answer from the cache.
      this.watch?.markStale();
      throw new TabgateError(
        'internal_error',
        `The owner's vault (${vaultFile(this.home)}) cannot be read (${(error as Error).message.slice(0, 200)}); no browser call runs until the owner fixes or removes it.`,
      );
    }
    for (const entry of entries) {
      const value = key ? open(key, entry, entry) : null;
      // An entry that does not open (altered, or another key) is no secret of ours: never filled.
      if (value !== null) fills.set(entry.name, { ...pick(entry), value });
    }
    const contents: VaultContents = { fills, all: Object.freeze([...fills.values()]) };
    // A file that could not be stat'ed is read again next time, never trusted from the cache.
    this.cache = stamp === null ? null : { stamp, contents };
    return contents;
  }

  /**
   * Changes whenever the CLI rewrites the vault (it always renames a new file in, so the inode
   * changes); 'none' when there is no vault, null when the file could not be stat'ed. No vault is
   * the common case: it is answered without an exception (and its stack trace) on every call.
   */
  private stamp(): string | null {
    try {
      const stat = fs.statSync(vaultFile(this.home), { bigint: true, throwIfNoEntry: false });
      return stat ? `${stat.ino}:${stat.mtimeNs}:${stat.size}` : 'none';
    } catch {
      return null;
    }
  }

  /** Stops watching the home folder: every read stats from now on. */
  close(): void {
    this.closed = true;
    this.watch?.close();
    this.watch = null;
  }
}

const pick = ({ name, origin, field }: StoredEntry) => ({ name, origin, field });
