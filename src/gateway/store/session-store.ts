/**
 * Sessions in SQLite (the embedded store's synchronous half; sqlite-store.ts wraps it), so they survive a restart and a controller can register for one. Every query is
 * scoped to the owning principal: another principal's session does not exist for you.
 */
import type { BindingState, SessionBinding } from '../session-binding.js';
import type { Db } from './database.js';
import type { StoredSession } from './store.js';

export type { StoredSession } from './store.js';

/** A `sessions` row as both stores read it (SQLite here, PostgreSQL in postgres/pg-sessions.ts). */
export interface SessionRow {
  id: string;
  title: string | null;
  source: string;
  principal_id: string;
  created_at: string;
  binding: BindingState | null;
  binding_changed_at: string | null;
  binding_controller_id: string | null;
  stopped_at: string | null;
}

export const toRecord = (row: SessionRow): StoredSession => ({
  session_id: row.id,
  title: row.title,
  created_at: row.created_at,
  source: row.source,
  principal_id: row.principal_id,
  binding: row.binding
    ? {
        state: row.binding,
        since: row.binding_changed_at ?? row.created_at,
        controller_id: row.binding_controller_id,
      }
    : null,
  stopped_at: row.stopped_at,
});

export class SessionStore {
  private readonly insertStmt;
  private readonly byIdStmt;
  private readonly listStmt;
  private readonly deleteStmt;
  private readonly bindStmt;
  private readonly stopStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare<[string, string | null, string, string, string]>(
      'INSERT OR IGNORE INTO sessions (id, title, source, principal_id, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.byIdStmt = db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id = ?');
    this.listStmt = db.prepare<[string], SessionRow>(
      'SELECT * FROM sessions WHERE principal_id = ? ORDER BY created_at, id',
    );
    this.deleteStmt = db.prepare<[string, string]>('DELETE FROM sessions WHERE id = ? AND principal_id = ?');
    this.bindStmt = db.prepare<[string | null, string, string | null, string]>(
      'UPDATE sessions SET binding = ?, binding_changed_at = ?, binding_controller_id = ? WHERE id = ?',
    );
    this.stopStmt = db.prepare<[string | null, string]>('UPDATE sessions SET stopped_at = ? WHERE id = ?');
  }

  /** Inserts unless the id exists; returns whichever record holds the id afterwards. */
  insert(record: StoredSession): { record: StoredSession; created: boolean } {
    const info = this.insertStmt.run(
      record.session_id,
      record.title,
      record.source,
      record.principal_id,
      record.created_at,
    );
    const stored = this.get(record.session_id);
    if (!stored) throw new Error('session vanished right after insert');
    return { record: stored, created: info.changes === 1 };
  }

  /** Any principal's session by id; callers check ownership. */
  get(id: string): StoredSession | null {
    const row = this.byIdStmt.get(id);
    return row ? toRecord(row) : null;
  }

  list(principalId: string): StoredSession[] {
    return this.listStmt.all(principalId).map(toRecord);
  }

  /** Records the session's binding (null: released by the owner); false when the session is gone. */
  setBinding(id: string, binding: SessionBinding | null, at: string): boolean {
    return this.bindStmt.run(binding?.state ?? null, at, binding?.controller_id ?? null, id).changes === 1;
  }

  /** Records the owner's Stop (a time) or Resume (null); false when the session is gone. */
  setStopped(id: string, stoppedAt: string | null): boolean {
    return this.stopStmt.run(stoppedAt, id).changes === 1;
  }

  delete(id: string, principalId: string): boolean {
    return this.deleteStmt.run(id, principalId).changes === 1;
  }
}
