/**
 * The embedded store: one SQLite file in the gateway's home, written by this gateway alone. Each
 * method runs its statement at once and hands back a settled promise, so a write is done before the
 * caller's next line (the order the broker's binding reports rely on), and nothing is ever announced
 * as changed from outside. The audit log's folds are the exception: a worker thread runs them
 * (background-folds.ts), since nothing waits on one but a read of the log.
 */
import path from 'node:path';
import { silentLogger, type Logger } from '../../log/logger.js';
import { AuditStore, insertedRows } from '../audit/audit-store.js';
import { PairingGrantStore } from '../pairing/grant-store.js';
import { GrantStore } from '../sites/grant-store.js';
import { BackgroundCheckpoints } from './background-checkpoints.js';
import { BackgroundFolds, FoldWorkerGone } from './background-folds.js';
import { openDatabase, STATE_DB_FILE, type Db } from './database.js';
import { SessionStore } from './session-store.js';
import type {
  AuditRows,
  FoldedAuditRow,
  InsertedAuditRow,
  PairingGrantRows,
  SessionRows,
  SiteGrantRows,
  Store,
} from './store.js';

/** Runs `fn` now; its value or its throw as a settled promise. */
function now<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

/** The audit rows of a store; `folds`, when given, folds on its worker thread (background-folds.ts). */
export function sqliteAuditRows(audit: AuditStore, folds: BackgroundFolds | null = null): AuditRows {
  const listeners = new Set<(rows: readonly InsertedAuditRow[]) => void>();
  const told = (rows: readonly FoldedAuditRow[], ids: readonly (number | null)[]) => {
    if (listeners.size === 0) return;
    const inserted = insertedRows(rows, ids);
    if (inserted.length > 0) for (const listener of listeners) listener(inserted);
  };
  const foldHere = (rows: readonly FoldedAuditRow[], offsets: ReadonlyMap<string, number>) =>
    now(() => told(rows, audit.foldIds(rows, offsets)));
  return {
    fold: (rows, offsets) =>
      folds?.running
        ? folds.fold(rows, offsets).then(
            (ids) => told(rows, ids),
            (error: unknown) => {
              if (error instanceof FoldWorkerGone) return foldHere(rows, offsets);
              throw error;
            },
          )
        : foldHere(rows, offsets),
    onFolded: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    recover: (file, read) => now(() => audit.recover(file, read)),
    journalOffset: (file) => now(() => audit.journalOffset(file)),
    forgetJournal: (file) => now(() => audit.forgetJournal(file)),
    list: (query) => now(() => audit.list(query)),
    purgeBefore: (cutoff) => now(() => audit.purgeBefore(cutoff)),
  };
}

export class SqliteStore implements Store {
  readonly kind = 'sqlite';
  readonly shared = false;
  readonly where: string;
  readonly sessions: SessionRows;
  readonly siteGrants: SiteGrantRows;
  readonly pairingGrants: PairingGrantRows;
  readonly audit: AuditRows;

  private readonly checkpoints: BackgroundCheckpoints | null;

  /**
   * Opens (creating and migrating) `state.db` in the home folder, for a gateway: its checkpoints run on
   * a worker thread (background-checkpoints.ts).
   */
  static open(home: string, log: Logger = silentLogger): SqliteStore {
    const file = path.join(home, STATE_DB_FILE);
    const db = openDatabase(home);
    return new SqliteStore(
      db,
      file,
      new BackgroundCheckpoints(db, file, log),
      BackgroundFolds.start(file, log),
    );
  }

  constructor(
    private readonly db: Db,
    where: string,
    checkpoints: BackgroundCheckpoints | null = null,
    private readonly folds: BackgroundFolds | null = null,
  ) {
    this.where = where;
    this.checkpoints = checkpoints;
    const sessions = new SessionStore(db);
    this.sessions = {
      insert: (record) => now(() => sessions.insert(record)),
      get: (id) => now(() => sessions.get(id)),
      list: (principalId) => now(() => sessions.list(principalId)),
      setBinding: (id, binding, at) => now(() => sessions.setBinding(id, binding, at)),
      setStopped: (id, stoppedAt) => now(() => sessions.setStopped(id, stoppedAt)),
      delete: (id, principalId, at) => now(() => sessions.delete(id, principalId, at)),
    };
    const sites = new GrantStore(db);
    this.siteGrants = {
      request: (sessionId, site, at) => now(() => sites.request(sessionId, site, at)),
      grant: (sessionId, site, at) => now(() => sites.grant(sessionId, site, at)),
      revoke: (sessionId, site) => now(() => sites.revoke(sessionId, site)),
      list: (sessionId) => now(() => sites.list(sessionId)),
      listAll: () => now(() => sites.listAll()),
      dropSession: (sessionId) => now(() => sites.dropSession(sessionId)),
    };
    const pairing = new PairingGrantStore(db);
    this.pairingGrants = {
      insert: (grant) => now(() => pairing.insert(grant)),
      listWithHashes: () => now(() => pairing.listWithHashes()),
      get: (grantId) => now(() => pairing.getWithHash(grantId)),
      revoke: (grantId, at) => now(() => pairing.revoke(grantId, new Date(at))),
      touch: (grantId, at) => now(() => pairing.touchNow(grantId, at)),
    };
    this.audit = sqliteAuditRows(new AuditStore(db), folds);
  }

  onChange(): () => void {
    return () => undefined;
  }

  async close(): Promise<void> {
    await this.folds?.close();
    await this.checkpoints?.close();
    try {
      this.db.close();
    } catch {
      // Closing never throws.
    }
  }
}
