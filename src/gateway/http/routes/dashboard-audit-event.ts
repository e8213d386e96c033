/**
 * The `audit` event of a row, as SSE text: the same text whether the row was read back from the store
 * or handed over by the fold that wrote it (which spares the read, the arguments' JSON parse and a
 * `Date` per row: what the dashboard's stream cost per call, bench:controller). The row's id is the
 * event id, so a reconnect resumes after it.
 */
import type { AuditEntry } from '../../audit/index.js';
import type { InsertedAuditRow } from '../../store/store.js';
import { sseFrame } from './dashboard-session-lines.js';

export const auditEventOf = (row: AuditEntry): string => sseFrame('audit', row, row.id);

export class AuditEvents {
  private second = NaN;
  /** `at` of any time within `second`, up to and including its decimal point. */
  private secondText = '';

  /** The event of a folded row, as `auditEventOf` gives it for the row read back. */
  ofFolded({ id, entry }: InsertedAuditRow): string {
    // Built in the order the store reads a row back (auditEntryOf), as JSON round-trips it.
    return sseFrame(
      'audit',
      {
        id,
        at: this.at(entry.at_ms),
        session_id: entry.session_id,
        principal_id: entry.principal_id,
        controller_id: entry.controller_id,
        backend: entry.backend,
        action: entry.action,
        arguments: entry.arguments,
        origin: entry.origin,
        outcome: entry.outcome,
        duration_ms: entry.duration_ms,
        tool_call_id: entry.tool_call_id,
        context: entry.context ?? null,
      } satisfies AuditEntry,
      id,
    );
  }

  /** ISO 8601 as `Date.toISOString` writes it; a batch's rows mostly share their second, kept as text. */
  private at(ms: number): string {
    // As `Date` takes a time: fractions cut toward zero.
    const whole = Math.trunc(ms);
    const second = Math.floor(whole / 1000);
    if (second !== this.second) {
      this.second = second;
      // Every year's form (also beyond 9999) ends in `.mmmZ`.
      this.secondText = new Date(second * 1000).toISOString().slice(0, -4);
    }
    return `${this.secondText}${String(whole - second * 1000).padStart(3, '0')}Z`;
  }
}
