/**
 * The two kinds of line in an audit journal file. A start line holds everything known when a call is
 * dispatched and is written before any answer can go out; an end line adds how the call ended. Each
 * call has a sequence number within its file, and `file#seq` is the row's `journal_ref`, which makes
 * a fold after a crash skip rows already in the table.
 */
import type { AuditContext, AuditEnd, AuditStart } from './audit-entry.js';

export type JournalLine =
  { kind: 'start'; seq: number; start: AuditStart } | ({ kind: 'end'; seq: number } & AuditEnd);

export function startLine(seq: number, start: AuditStart): string {
  return `${JSON.stringify({ s: seq, ...start })}\n`;
}

export function endLine(seq: number, end: AuditEnd): string {
  return `${JSON.stringify({ e: seq, ...end })}\n`;
}

const TEXT = ['session_id', 'principal_id', 'backend', 'action'] as const;
const OPTIONAL_TEXT = ['controller_id', 'origin', 'tool_call_id'] as const;

const optionalText = (value: unknown) => value === null || typeof value === 'string';

/** A journal line back into its parts; null for anything that is not one (a torn or foreign line). */
export function parseLine(line: string): JournalLine | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const row = value as Record<string, unknown>;
  if (Number.isSafeInteger(row.e)) {
    if (typeof row.outcome !== 'string' || typeof row.duration_ms !== 'number') return null;
    if (!optionalText(row.origin)) return null;
    // Lines of a tabgate from before `context` have none.
    const context = row.context ?? null;
    if (context !== null && (typeof context !== 'object' || Array.isArray(context))) return null;
    return {
      kind: 'end',
      seq: row.e as number,
      outcome: row.outcome,
      duration_ms: row.duration_ms,
      origin: row.origin,
      context: context as AuditContext | null,
    };
  }
  if (!Number.isSafeInteger(row.s) || typeof row.at_ms !== 'number') return null;
  if (!TEXT.every((k) => typeof row[k] === 'string')) return null;
  if (!OPTIONAL_TEXT.every((k) => optionalText(row[k]))) return null;
  if (typeof row.arguments !== 'object' || row.arguments === null || Array.isArray(row.arguments))
    return null;
  const { s: seq, ...start } = row;
  return { kind: 'start', seq: seq as number, start: start as unknown as AuditStart };
}
