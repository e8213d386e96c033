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
  /**
   * What was in force or came about that only some rows need: the session's site policy on a site
   * refusal (`site_policy`), the provider's reference on the call that opened its session
   * (`external_call_id`). Null on most rows.
   */
  context: AuditContext | null;
}

/** A row's `context`: a small JSON object, stored as text. */
export type AuditContext = Readonly<Record<string, unknown>>;

export type NewAuditEntry = Omit<AuditEntry, 'id' | 'at' | 'context'> & {
  at_ms: number;
  context?: AuditContext | null;
};

/** A call as it is dispatched: the row without what only its end knows. */
export type AuditStart = Omit<NewAuditEntry, 'outcome' | 'duration_ms' | 'context'>;

export interface AuditEnd {
  outcome: string;
  duration_ms: number;
  /** Known only from the result (the tab's URL) when the start had none. */
  origin: string | null;
  context?: AuditContext | null;
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
  context: string | null;
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
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
  arguments: parseObject(args) ?? {},
  origin: row.origin,
  outcome: row.outcome,
  duration_ms: row.duration_ms,
  tool_call_id: row.tool_call_id,
  // A file from before `context` has no such column.
  context: row.context ? parseObject(row.context) : null,
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
  contextText(entry),
  journalRef,
];

/** A row's `context` as both stores keep it. */
export const contextText = ({ context }: { context?: AuditContext | null }): string | null =>
  context ? JSON.stringify(context) : null;
