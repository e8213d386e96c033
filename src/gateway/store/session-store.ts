/**
 * Sessions in SQLite (the embedded store's synchronous half; sqlite-store.ts wraps it), so they survive
 * a restart and a controller can register for one. Every query is scoped to the owning principal:
 * another principal's session does not exist for you.
 *
 * A session a user's browser served is never forgotten by its agent's DELETE: the row is retired
 * (hidden from every read, its binding kept), and the same principal creating that id again gets it
 * back still bound, so its calls fail closed until the browser shares again. Otherwise an agent could
 * delete and recreate a shared session's id (the reference client creates sessions by id) and have
 * its next call served by another browser. Only the owner's release unbinds a session.
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
  /** Set while the row is retired: deleted by its agent, kept for its binding. */
  retired_at: string | null;
}

/** The statements both stores run, so their answers cannot drift apart. */
export const SESSION_SQL = {
  live: 'retired_at IS NULL',
  /** Retire, not delete, a session that a browser served. */
  retire: 'binding IS NOT NULL',
} as const;

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
  private readonly retireStmt;
  private readonly reviveStmt;
  private readonly anyByIdStmt;
  private readonly bindStmt;
  private readonly stopStmt;

  constructor(db: Db) {
    this.insertStmt = db.prepare<[string, string | null, string, string, string]>(
      'INSERT OR IGNORE INTO sessions (id, title, source, principal_id, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.reviveStmt = db.prepare<[string | null, string, string, string, string]>(
      `UPDATE sessions SET retired_at = NULL, title = ?, source = ?, created_at = ?
         WHERE id = ? AND principal_id = ? AND retired_at IS NOT NULL`,
    );
    this.anyByIdStmt = db.prepare<[string], SessionRow>('SELECT * FROM sessions WHERE id = ?');
    this.byIdStmt = db.prepare<[string], SessionRow>(
      `SELECT * FROM sessions WHERE id = ? AND ${SESSION_SQL.live}`,
    );
    this.listStmt = db.prepare<[string], SessionRow>(
      `SELECT * FROM sessions WHERE principal_id = ? AND ${SESSION_SQL.live} ORDER BY created_at, id`,
    );
    this.retireStmt = db.prepare<[string, string, string]>(
      `UPDATE sessions SET retired_at = ?
         WHERE id = ? AND principal_id = ? AND ${SESSION_SQL.live} AND ${SESSION_SQL.retire}`,
    );
    this.deleteStmt = db.prepare<[string, string]>(
      `DELETE FROM sessions WHERE id = ? AND principal_id = ? AND ${SESSION_SQL.live}`,
    );
    this.bindStmt = db.prepare<[string | null, string, string | null, string]>(
      'UPDATE sessions SET binding = ?, binding_changed_at = ?, binding_controller_id = ? WHERE id = ?',
    );
    this.stopStmt = db.prepare<[string | null, string]>('UPDATE sessions SET stopped_at = ? WHERE id = ?');
  }

  /**
   * Inserts unless the id exists (a retired row of the same principal comes back, binding and all);
   * returns whichever record holds the id afterwards.
   */
  insert(record: StoredSession): { record: StoredSession; created: boolean } {
    const { session_id: id, title, source, principal_id: principal, created_at: at } = record;
    const revived = this.reviveStmt.run(title, source, at, id, principal).changes === 1;
    const inserted = !revived && this.insertStmt.run(id, title, source, principal, at).changes === 1;
    const row = this.anyByIdStmt.get(id);
    if (!row) throw new Error('session vanished right after insert');
    return { record: toRecord(row), created: revived || inserted };
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

  /** Deletes the session, or retires it if a browser served it; false when the caller has no such session. */
  delete(id: string, principalId: string, at: string): boolean {
    if (this.retireStmt.run(at, id, principalId).changes === 1) return true;
    return this.deleteStmt.run(id, principalId).changes === 1;
  }
}
