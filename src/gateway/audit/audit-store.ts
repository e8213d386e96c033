/**
 * The audit log's table (created by the store's migrations): one row per tool call that reached a
 * browser. Rows arrive in batches from the write-ahead journal (audit-journal.ts), which also keeps
 * its fold offsets here. Read by `GET /v1/audit` and by `tabgate audit`.
 */
import type { Statement } from 'better-sqlite3';
import type { Db } from '../store/database.js';
import type { FoldedAuditRow, InsertedAuditRow, RecoveredChunk } from '../store/store.js';
import {
  auditEntryOf,
  auditRowValues,
  contextText,
  INTERRUPTED,
  type AuditEntry,
  type AuditEnd,
  type AuditQuery,
  type AuditRow,
  type NewAuditEntry,
} from './audit-entry.js';
import { INDEX_BATCH, SessionIndex } from './session-index.js';

// The types of the store's own methods, for whoever holds a store.
export type { AuditEntry, AuditQuery, NewAuditEntry } from './audit-entry.js';

/** The rows a fold inserted, with the ids it gave them (`AuditStore.foldIds`), in id order. */
export function insertedRows(
  rows: readonly FoldedAuditRow[],
  ids: readonly (number | null)[],
): InsertedAuditRow[] {
  const inserted: InsertedAuditRow[] = [];
  rows.forEach((row, i) => {
    const id = ids[i];
    if (id !== null && id !== undefined) inserted.push({ id, entry: row.entry });
  });
  return inserted;
}

export class AuditStore {
  private insertStmt: Statement<unknown[]> | null = null;
  private offsetStmt: Statement<[string], { folded: number }> | null = null;
  private setOffsetStmt: Statement<[string, number]> | null = null;

  private readonly sessions: SessionIndex;

  /** `indexBatch`: rows past the session index before a fold moves them in (session-index.ts). */
  constructor(
    private readonly db: Db,
    indexBatch = INDEX_BATCH,
  ) {
    this.sessions = new SessionIndex(db, indexBatch);
  }

  /**
   * Runs `fn` in an IMMEDIATE transaction: the write lock is taken before the first read, so a fold's
   * offset read and its inserts can never interleave with another process's fold.
   */
  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn).immediate();
  }

  /** How many bytes of a journal file are folded into the table (0 for a file never seen). */
  journalOffset(file: string): number {
    this.offsetStmt ??= this.db.prepare<[string], { folded: number }>(
      'SELECT folded FROM audit_journal WHERE file = ?',
    );
    return this.offsetStmt.get(file)?.folded ?? 0;
  }

  setJournalOffset(file: string, folded: number): void {
    this.setOffsetStmt ??= this.db.prepare<[string, number]>(
      `INSERT INTO audit_journal (file, folded) VALUES (?, ?)
         ON CONFLICT (file) DO UPDATE SET folded = excluded.folded`,
    );
    this.setOffsetStmt.run(file, folded);
  }

  forgetJournal(file: string): void {
    this.db.prepare('DELETE FROM audit_journal WHERE file = ?').run(file);
  }

  /**
   * Inserts a row; one whose `journalRef` is already in the table is skipped (a fold repeated after a
   * crash). Returns the new row's id, or null when it was skipped.
   */
  append(entry: NewAuditEntry, journalRef: string | null = null): number | null {
    // Prepared on first use, so a read-only handle (`tabgate audit`) never prepares a write.
    this.insertStmt ??= this.db.prepare<unknown[]>(
      `INSERT OR IGNORE INTO audit_log (at_ms, session_id, principal_id, controller_id, backend, action,
           arguments, origin, outcome, duration_ms, tool_call_id, context, journal_ref)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    const info = this.insertStmt.run(...auditRowValues(entry, journalRef));
    return info.changes === 1 ? Number(info.lastInsertRowid) : null;
  }

  /**
   * Rows and the journal offsets that account for them, in one transaction; returns the rows inserted,
   * with their ids, in id order.
   */
  fold(rows: readonly FoldedAuditRow[], offsets: ReadonlyMap<string, number>): InsertedAuditRow[] {
    return insertedRows(rows, this.foldIds(rows, offsets));
  }

  /** `fold`, answering each row's new id, or null for a row already in the table (what a fold thread sends back). */
  foldIds(rows: readonly FoldedAuditRow[], offsets: ReadonlyMap<string, number>): (number | null)[] {
    return this.transaction(() => {
      const ids = rows.map((row) => this.append(row.entry, row.journalRef));
      for (const [file, folded] of offsets) this.setJournalOffset(file, folded);
      this.sessions.catchUpIfDue();
      return ids;
    });
  }

  /** Moves every row into the session index now (session-index.ts). */
  indexSessions(): void {
    this.transaction(() => this.sessions.catchUp());
  }

  /** One step of recovering a journal file, under the write lock (see the storage interface). */
  recover(file: string, read: (offset: number) => RecoveredChunk | null): boolean {
    return this.transaction(() => {
      const chunk = read(this.journalOffset(file));
      if (!chunk) return false;
      for (const line of chunk.lines) {
        if (line.kind === 'start') this.append(line.entry, line.journalRef);
        else this.completeInterrupted(line.journalRef, line);
      }
      this.setJournalOffset(file, chunk.folded);
      this.sessions.catchUpIfDue();
      return chunk.more;
    });
  }

  /** Gives a row logged as interrupted the outcome its journal recorded after all. */
  completeInterrupted(journalRef: string, end: AuditEnd): void {
    this.db
      .prepare(
        `UPDATE audit_log SET outcome = ?, duration_ms = ?, origin = coalesce(origin, ?), context = ?
           WHERE journal_ref = ? AND outcome = ?`,
      )
      .run(end.outcome, end.duration_ms, end.origin, contextText(end), journalRef, INTERRUPTED);
  }

  list(query: AuditQuery): AuditEntry[] {
    // Paging forward reads oldest first; the first page is the newest rows, still shown oldest first.
    const rows =
      query.session !== undefined
        ? this.sessions.list(query.session, query.after, query.limit)
        : query.after !== undefined
          ? this.db
              .prepare<[number, number], AuditRow>(
                'SELECT * FROM audit_log WHERE id > ? ORDER BY id ASC LIMIT ?',
              )
              .all(query.after, query.limit)
          : this.db
              .prepare<[number], AuditRow>('SELECT * FROM audit_log ORDER BY id DESC LIMIT ?')
              .all(query.limit);
    if (query.after === undefined) rows.reverse();
    return rows.map(auditEntryOf);
  }

  /** Deletes rows older than the cutoff; returns how many went. */
  purgeBefore(cutoffMs: number): number {
    return this.transaction(() => {
      this.sessions.forgetBefore(cutoffMs);
      return this.db.prepare('DELETE FROM audit_log WHERE at_ms < ?').run(cutoffMs).changes;
    });
  }
}
