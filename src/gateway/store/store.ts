/**
 * The one storage interface: everything that must outlive a gateway (sessions, site grants, pairing
 * grants, the audit log), behind which sit two implementations: the embedded SQLite file (the default,
 * one gateway) and PostgreSQL (several gateways sharing one database: docs/cluster.md). Every method
 * is async because PostgreSQL is a network away; the SQLite implementation runs each statement before
 * its promise is returned, so a write is done by the time its caller's next line runs, as before.
 */
import type { AuditEnd, AuditEntry, AuditQuery, NewAuditEntry } from '../audit/audit-entry.js';
import type { PairingGrant } from '../pairing/grant-store.js';
import type { SessionRecord } from '../service.js';
import type { SessionBinding } from '../session-binding.js';
import type { GrantRow } from '../sites/grant-store.js';

export interface StoredSession extends SessionRecord {
  principal_id: string;
}

export interface SessionRows {
  /** Inserts unless the id exists; returns whichever record holds the id afterwards. */
  insert(record: StoredSession): Promise<{ record: StoredSession; created: boolean }>;
  /** Any principal's session by id; callers check ownership. */
  get(id: string): Promise<StoredSession | null>;
  list(principalId: string): Promise<StoredSession[]>;
  /** Records the session's binding (null: released by the owner); false when the session is gone. */
  setBinding(id: string, binding: SessionBinding | null, at: string): Promise<boolean>;
  /** Records the owner's Stop (a time) or Resume (null); false when the session is gone. */
  setStopped(id: string, stoppedAt: string | null): Promise<boolean>;
  /**
   * Deletes the caller's session, or retires it when a user's browser served it (session-store.ts):
   * hidden from every read, its binding kept for the same id created again. False when there is none.
   */
  delete(id: string, principalId: string, at: string): Promise<boolean>;
}

export interface SiteGrantRows {
  /** A site the session asks for; asking again never downgrades a grant. */
  request(sessionId: string, site: string, at: string): Promise<void>;
  grant(sessionId: string, site: string, at: string): Promise<void>;
  /** False when the session held no such row. */
  revoke(sessionId: string, site: string): Promise<boolean>;
  /** In the order the rows were first written. */
  list(sessionId: string): Promise<GrantRow[]>;
  /** Every session's rows, each session's in the order first written. */
  listAll(): Promise<GrantRow[]>;
  dropSession(sessionId: string): Promise<void>;
}

export interface NewPairingGrant {
  grantId: string;
  secretHash: Buffer;
  name: string;
  origin: string;
  createdAt: string;
}

export interface PairingGrantRows {
  insert(grant: NewPairingGrant): Promise<PairingGrant>;
  /** Every grant with its token hash, revoked ones included, oldest first. */
  listWithHashes(): Promise<{ grant: PairingGrant; secretHash: Buffer }[]>;
  get(grantId: string): Promise<{ grant: PairingGrant; secretHash: Buffer } | null>;
  /** Marks the grant revoked; false when it is unknown or was revoked already. */
  revoke(grantId: string, at: string): Promise<boolean>;
  touch(grantId: string, at: string): Promise<void>;
}

/** One row folded from the audit journal: `journalRef` makes a repeated fold insert nothing twice. */
export interface FoldedAuditRow {
  entry: NewAuditEntry;
  journalRef: string | null;
}

/** A row a fold put in the table, with the id the store gave it. */
export interface InsertedAuditRow {
  id: number;
  entry: NewAuditEntry;
}

/** A line of a journal being recovered: a call that started, or how one ended. */
export type RecoveredLine =
  | { kind: 'start'; entry: NewAuditEntry; journalRef: string }
  | ({ kind: 'end'; journalRef: string } & AuditEnd);

/** What a recovery step read from a journal file past its folded offset. */
export interface RecoveredChunk {
  lines: RecoveredLine[];
  /** The offset to store once `lines` are in: just past the last whole line read. */
  folded: number;
  /** Whether the file has more to read after this chunk. */
  more: boolean;
}

export interface AuditRows {
  /**
   * Inserts rows (a `journalRef` already in the table is skipped) and stores the journal offsets that
   * account for them, all in one transaction. Rows are numbered in commit order, so a reader following
   * by `after` never misses a row that commits late with a smaller id.
   */
  fold(rows: readonly FoldedAuditRow[], offsets: ReadonlyMap<string, number>): Promise<void>;
  /**
   * Hands `listener` the rows of every fold once it has committed, with their ids, in id order (a
   * listener must not throw); returns the unsubscribe function. Only a store no one else writes has it:
   * in a shared one, other gateways' rows are known only by reading.
   */
  onFolded?(listener: (rows: readonly InsertedAuditRow[]) => void): () => void;
  /**
   * One step of recovering a gone gateway's journal file, in one transaction that excludes every other
   * fold: reads the file's folded offset, hands it to `read` (which reads the file from there), applies
   * the lines and stores the new offset. Returns whether `read` said there is more.
   */
  recover(file: string, read: (offset: number) => RecoveredChunk | null): Promise<boolean>;
  /** How many bytes of a journal file are folded into the table (0 for a file never seen). */
  journalOffset(file: string): Promise<number>;
  forgetJournal(file: string): Promise<void>;
  list(query: AuditQuery): Promise<AuditEntry[]>;
  /** Deletes rows older than the cutoff; returns how many went. */
  purgeBefore(cutoffMs: number): Promise<number>;
}

/** A row changed, by this gateway or another sharing the store; `key` names it (`*`: anything may have). */
export interface StoreChange {
  table: 'sessions' | 'site_grants' | 'pairing_grants' | '*';
  key: string;
}

export interface Store {
  /** `sqlite` or `postgres`. */
  readonly kind: 'sqlite' | 'postgres';
  /**
   * Whether other gateways write the same store. Only a store no one else writes may be cached
   * without being told of changes.
   */
  readonly shared: boolean;
  /** Where it is, for messages: a path, or the URL with its password hidden. */
  readonly where: string;
  readonly sessions: SessionRows;
  readonly siteGrants: SiteGrantRows;
  readonly pairingGrants: PairingGrantRows;
  readonly audit: AuditRows;
  /**
   * Subscribes to changes made by any gateway sharing the store (`*` after a lost connection: reload
   * everything). A store no one else writes announces nothing. Returns the unsubscribe function.
   */
  onChange(listener: (change: StoreChange) => void): () => void;
  /** Closes the connections. Never throws. */
  close(): Promise<void>;
}
