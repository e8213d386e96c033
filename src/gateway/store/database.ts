/**
 * The embedded SQLite file `$TABGATE_HOME/state.db`: WAL so readers never wait on the writer,
 * `synchronous=NORMAL` (durable at checkpoints, fast per write), and schema migrations keyed by
 * `user_version`, so later issues append steps (pairing grants, audit log) without touching old ones.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import { createPrivateDir, createPrivateFile } from '../security/private-files.js';

export type Db = Database.Database;

/** Step N brings the schema from version N to N+1. Append only; never edit a shipped step. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE sessions (
     id TEXT PRIMARY KEY,
     title TEXT,
     source TEXT NOT NULL,
     principal_id TEXT NOT NULL,
     created_at TEXT NOT NULL
   );
   CREATE INDEX sessions_by_principal ON sessions (principal_id, created_at);`,
  // The append-only audit log (src/gateway/audit/); rows are only inserted, and purged by age.
  `CREATE TABLE audit_log (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     at_ms INTEGER NOT NULL,
     session_id TEXT NOT NULL,
     principal_id TEXT NOT NULL,
     controller_id TEXT,
     backend TEXT NOT NULL,
     action TEXT NOT NULL,
     arguments TEXT NOT NULL,
     origin TEXT,
     outcome TEXT NOT NULL,
     duration_ms REAL NOT NULL,
     tool_call_id TEXT
   );
   CREATE INDEX audit_by_session ON audit_log (session_id, id);
   CREATE INDEX audit_by_time ON audit_log (at_ms);`,
  // The audit journal (src/gateway/audit/audit-journal.ts): how far each file is folded, and each
  // row's place in its journal, so a fold repeated after a crash inserts nothing twice.
  `CREATE TABLE audit_journal (
     file TEXT PRIMARY KEY,
     folded INTEGER NOT NULL
   );
   ALTER TABLE audit_log ADD COLUMN journal_ref TEXT;
   CREATE UNIQUE INDEX audit_by_journal_ref ON audit_log (journal_ref);`,
  // Whether a session was ever bound to a user's browser (src/gateway/session-binding.ts): kept with the
  // session so that a stop, a revoke or a restart can never hand it to another browser.
  `ALTER TABLE sessions ADD COLUMN binding TEXT;
   ALTER TABLE sessions ADD COLUMN binding_changed_at TEXT;
   ALTER TABLE sessions ADD COLUMN binding_controller_id TEXT;`,
  // Site grants per session (src/gateway/sites/): what a session asked for up front (`requested`) and
  // what the owner granted (`granted`); only the owner's credential ever writes `granted`.
  `CREATE TABLE site_grants (
     session_id TEXT NOT NULL,
     site TEXT NOT NULL,
     state TEXT NOT NULL,
     changed_at TEXT NOT NULL,
     PRIMARY KEY (session_id, site)
   );`,
  // The owner's Stop (src/gateway/in-flight-calls.ts): kept with the session, so a stopped session stays
  // stopped across a restart until the owner resumes it.
  `ALTER TABLE sessions ADD COLUMN stopped_at TEXT;`,
  // What some audit rows carry besides the call (src/gateway/audit/audit-entry.ts): the site policy
  // on a refusal, the provider's reference on the call that opened its session.
  `ALTER TABLE audit_log ADD COLUMN context TEXT;`,
  // A session a user's browser served, deleted by its agent (session-store.ts): the row stays, hidden,
  // so the same id created again is still that browser's and fails closed until it shares again.
  `ALTER TABLE sessions ADD COLUMN retired_at TEXT;`,
  // The audit log's session index, built in bulk (src/gateway/audit/session-index.ts): every row up to
  // `upto` has its entry; an ordinary index cost a scattered B-tree insert per row.
  `CREATE TABLE audit_session_index (
     session_id TEXT NOT NULL,
     id INTEGER NOT NULL,
     PRIMARY KEY (session_id, id)
   ) WITHOUT ROWID;
   INSERT INTO audit_session_index (session_id, id) SELECT session_id, id FROM audit_log ORDER BY session_id, id;
   CREATE TABLE audit_indexed (upto INTEGER NOT NULL);
   INSERT INTO audit_indexed (upto) SELECT coalesce(max(id), 0) FROM audit_log;
   DROP INDEX audit_by_session;`,
];

export const STATE_DB_FILE = 'state.db';

export function openDatabase(home: string): Db {
  createPrivateDir(home);
  const file = path.join(home, STATE_DB_FILE);
  // SQLite would create the file 0644, and it gives -wal and -shm the main file's mode: so 0600 first.
  createPrivateFile(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  connectionSettings(db);
  migrate(db);
  return db;
}

/**
 * One more connection to a state.db that openDatabase has created and migrated (a worker thread's),
 * with the settings SQLite keeps per connection.
 */
export function openDatabaseConnection(file: string): Db {
  const db = new Database(file, { fileMustExist: true });
  connectionSettings(db);
  return db;
}

function connectionSettings(db: Db): void {
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 5000');
}

function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > MIGRATIONS.length) {
    throw new Error(
      `state.db has schema version ${current}, newer than this tabgate knows (${MIGRATIONS.length}); upgrade tabgate`,
    );
  }
  for (let version = current; version < MIGRATIONS.length; version++) {
    const step = MIGRATIONS[version] as string;
    db.transaction(() => {
      db.exec(step);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
