/**
 * What the audit log holds, in every shape it takes on the way: a call as it is dispatched (`AuditStart`,
 * the journal's start line), how it ended (`AuditEnd`, the end line), the row written to SQLite
 * (`NewAuditEntry`) and the row read back (`AuditEntry`). The store, the journal and its recovery all
 * speak these types and import them from here, never from one another.
 */

export interface AuditEntry {
  id: number;
  /** ISO 8601, when the call started. */
  at: string;
  session_id: string;
  principal_id: string;
  /** The user's controller that ran it; null when a backend ran it or no controller was reachable. */
  controller_id: string | null;
  /** `controller`, or the backend's name (`local`, a provider, `cdp-url`). */
  backend: string;
  action: string;
  /** Redacted: no typed text, no secret-looking URL parts. */
  arguments: Record<string, unknown>;
  /** The tab's origin when known (the navigate URL's, or the result's `url`). */
  origin: string | null;
  /** `ok`, or the error code the agent got. */
  outcome: string;
  duration_ms: number;
  tool_call_id: string | null;
}

export type NewAuditEntry = Omit<AuditEntry, 'id' | 'at'> & { at_ms: number };

/** A call as it is dispatched: the row without its outcome. */
export type AuditStart = Omit<NewAuditEntry, 'outcome' | 'duration_ms'>;

export interface AuditEnd {
  outcome: string;
  duration_ms: number;
  /** Known only from the result (the tab's URL) when the start had none. */
  origin: string | null;
}

export interface AuditQuery {
  session?: string;
  /** Only rows with an id greater than this (the cursor of the previous page). */
  after?: number;
  /** At most this many rows, oldest first. Without `after`, the newest `limit` rows. */
  limit: number;
}

/** What a call that started but never ended (its gateway died) is logged as. */
export const INTERRUPTED = 'interrupted';

/**
 * A row's `journal_ref`: its journal file and its sequence number there. Unique in the table, which is
 * what lets a fold repeated after a crash skip the rows already in.
 */
export const journalRef = (file: string, seq: number): string => `${file}#${seq}`;

/** An audit row as both stores keep it (SQLite and PostgreSQL): `arguments` as JSON text. */
export interface AuditRow {
  id: number;
  at_ms: number;
  session_id: string;
  principal_id: string;
  controller_id: string | null;
  backend: string;
  action: string;
  arguments: string;
  origin: string | null;
  outcome: string;
  duration_ms: number;
  tool_call_id: string | null;
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** A stored row as the API and the CLI show it. */
export const auditEntryOf = ({ at_ms, arguments: args, ...row }: AuditRow): AuditEntry => ({
  id: row.id,
  at: new Date(at_ms).toISOString(),
  session_id: row.session_id,
  principal_id: row.principal_id,
  controller_id: row.controller_id,
  backend: row.backend,
  action: row.action,
  arguments: parseArguments(args),
  origin: row.origin,
  outcome: row.outcome,
  duration_ms: row.duration_ms,
  tool_call_id: row.tool_call_id,
});

/** The values of a new row, in the column order both stores insert them (journal reference last). */
export const auditRowValues = (entry: NewAuditEntry, journalRef: string | null): unknown[] => [
  entry.at_ms,
  entry.session_id,
  entry.principal_id,
  entry.controller_id,
  entry.backend,
  entry.action,
  JSON.stringify(entry.arguments),
  entry.origin,
  entry.outcome,
  entry.duration_ms,
  entry.tool_call_id,
  journalRef,
];
