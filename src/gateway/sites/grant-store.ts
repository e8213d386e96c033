/**
 * Site grants in SQLite, so they live as long as the session they belong to (a restart keeps them).
 * A row is either a site the session asked for (`requested`) or one the owner granted (`granted`).
 */
import type { Db } from '../store/database.js';

export type GrantState = 'requested' | 'granted';

export interface GrantRow {
  session_id: string;
  site: string;
  state: GrantState;
  changed_at: string;
}

export class GrantStore {
  private readonly requestStmt;
  private readonly grantStmt;
  private readonly revokeStmt;
  private readonly bySessionStmt;
  private readonly dropSessionStmt;
  private readonly allStmt;

  constructor(db: Db) {
    // Asking again never downgrades a grant.
    this.requestStmt = db.prepare<[string, string, string]>(
      `INSERT OR IGNORE INTO site_grants (session_id, site, state, changed_at) VALUES (?, ?, 'requested', ?)`,
    );
    this.grantStmt = db.prepare<[string, string, string]>(
      `INSERT INTO site_grants (session_id, site, state, changed_at) VALUES (?, ?, 'granted', ?)
       ON CONFLICT (session_id, site) DO UPDATE SET state = 'granted', changed_at = excluded.changed_at`,
    );
    this.revokeStmt = db.prepare<[string, string]>(
      'DELETE FROM site_grants WHERE session_id = ? AND site = ?',
    );
    this.bySessionStmt = db.prepare<[string], GrantRow>(
      'SELECT * FROM site_grants WHERE session_id = ? ORDER BY rowid',
    );
    this.dropSessionStmt = db.prepare<[string]>('DELETE FROM site_grants WHERE session_id = ?');
    this.allStmt = db.prepare<[], GrantRow>('SELECT * FROM site_grants ORDER BY rowid');
  }

  request(sessionId: string, site: string, at: string): void {
    this.requestStmt.run(sessionId, site, at);
  }

  grant(sessionId: string, site: string, at: string): void {
    this.grantStmt.run(sessionId, site, at);
  }

  /** False when the session held no such row. */
  revoke(sessionId: string, site: string): boolean {
    return this.revokeStmt.run(sessionId, site).changes === 1;
  }

  list(sessionId: string): GrantRow[] {
    return this.bySessionStmt.all(sessionId);
  }

  listAll(): GrantRow[] {
    return this.allStmt.all();
  }

  dropSession(sessionId: string): void {
    this.dropSessionStmt.run(sessionId);
  }
}
