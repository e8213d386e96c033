/**
 * Which audit rows belong to which session, for `GET /v1/audit?session=` and `tabgate audit --session`,
 * in the SQLite store. An ordinary index on (session_id, id) costs a B-tree insert at each row's
 * session: with calls spread over 1,000 sessions every row of a fold lands on a page of its own, and
 * each such page is written to the WAL again (measured: ~17 µs of CPU and 4 KB of WAL per row, against
 * ~5 µs with calls on one session). So the index is a table built in bulk: every row up to `upto` has
 * its entry there; the rows after it (fewer than a batch, plus a fold) are found by reading the log's
 * tail by id. Once the tail holds a batch, the fold that grew it also moves the tail into the index,
 * sorted by session, so each page takes many entries at once.
 *
 * Rows never move and ids never change: only index entries are added, in the same transaction as the
 * `upto` that accounts for them. A crash rolls both back, and a reader sees the log, in order, with
 * nothing lost or doubled, whatever moment it reads at. A file migrated by a gateway older than this
 * table (read by the CLI) keeps its ordinary index, and is read through it.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from '../store/database.js';
import type { AuditRow } from './audit-entry.js';

/** Rows past `upto` before a fold moves them into the index. */
export const INDEX_BATCH = 10_000;

export class SessionIndex {
  private bulk: boolean | null = null;
  private uptoStmt: Statement<[], { upto: number }> | null = null;
  private lastStmt: Statement<[], { last: number | null }> | null = null;

  constructor(
    private readonly db: Db,
    private readonly batch = INDEX_BATCH,
  ) {}

  /** Whether the file has the bulk index (else the ordinary one of older versions). */
  private get present(): boolean {
    this.bulk ??=
      this.db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'audit_indexed'").get() !==
      undefined;
    return this.bulk;
  }

  /** Every row up to this id has its index entry. */
  private upto(): number {
    this.uptoStmt ??= this.db.prepare<[], { upto: number }>('SELECT upto FROM audit_indexed');
    return this.uptoStmt.get()?.upto ?? 0;
  }

  /** In a write transaction, after rows were added: moves the tail into the index once it holds a batch. */
  catchUpIfDue(): void {
    if (!this.present) return;
    const last = this.lastId();
    if (last - this.upto() >= this.batch) this.moveTail(last);
  }

  /** In a write transaction: moves every row's entry into the index (the CLI and tests use it). */
  catchUp(): void {
    if (this.present) this.moveTail(this.lastId());
  }

  private lastId(): number {
    this.lastStmt ??= this.db.prepare<[], { last: number | null }>('SELECT max(id) AS last FROM audit_log');
    return this.lastStmt.get()?.last ?? 0;
  }

  private moveTail(last: number): void {
    // OR IGNORE: entries are only ever added, and an entry already in is the same entry.
    this.db
      .prepare(
        `INSERT OR IGNORE INTO audit_session_index (session_id, id)
           SELECT session_id, id FROM audit_log WHERE id > ? AND id <= ? ORDER BY session_id, id`,
      )
      .run(this.upto(), last);
    this.db.prepare('UPDATE audit_indexed SET upto = ?').run(last);
  }

  /**
   * A session's rows as AuditStore.list answers them: with `after`, the oldest past it first; without,
   * the newest first (the caller turns them round). Read in one transaction: one snapshot of both.
   */
  list(session: string, after: number | undefined, limit: number): AuditRow[] {
    if (!this.present) return this.listIndexed(session, after, limit);
    return this.db.transaction(() => {
      const upto = this.upto();
      if (after !== undefined) {
        const indexed = after < upto ? this.fromIndex(session, after, upto, 'ASC', limit) : [];
        if (indexed.length === limit) return indexed;
        return [...indexed, ...this.fromTail(session, Math.max(after, upto), 'ASC', limit - indexed.length)];
      }
      const tail = this.fromTail(session, upto, 'DESC', limit);
      if (tail.length === limit) return tail;
      return [...tail, ...this.fromIndex(session, 0, upto, 'DESC', limit - tail.length)];
    })();
  }

  /** In the purge's transaction, before its rows go: their index entries go too. */
  forgetBefore(cutoffMs: number): void {
    if (!this.present) return;
    this.db
      .prepare(
        `DELETE FROM audit_session_index
           WHERE (session_id, id) IN (SELECT session_id, id FROM audit_log WHERE at_ms < ?)`,
      )
      .run(cutoffMs);
  }

  private fromIndex(
    session: string,
    after: number,
    upto: number,
    order: 'ASC' | 'DESC',
    limit: number,
  ): AuditRow[] {
    return this.db
      .prepare<[string, number, number, number], AuditRow>(
        `SELECT audit_log.* FROM audit_session_index AS i JOIN audit_log ON audit_log.id = i.id
           WHERE i.session_id = ? AND i.id > ? AND i.id <= ?
           ORDER BY i.id ${order} LIMIT ?`,
      )
      .all(session, after, upto, limit);
  }

  private fromTail(session: string, after: number, order: 'ASC' | 'DESC', limit: number): AuditRow[] {
    return this.db
      .prepare<[number, string, number], AuditRow>(
        `SELECT * FROM audit_log WHERE id > ? AND session_id = ? ORDER BY id ${order} LIMIT ?`,
      )
      .all(after, session, limit);
  }

  /** A file without the bulk index: the ordinary one. */
  private listIndexed(session: string, after: number | undefined, limit: number): AuditRow[] {
    return this.db
      .prepare<[string, number, number], AuditRow>(
        `SELECT * FROM audit_log WHERE session_id = ? AND id > ? ORDER BY id ${after !== undefined ? 'ASC' : 'DESC'} LIMIT ?`,
      )
      .all(session, after ?? 0, limit);
  }
}
