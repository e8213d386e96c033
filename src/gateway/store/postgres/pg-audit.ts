/**
 * The audit log in PostgreSQL, written by every gateway sharing it. Every write that numbers rows
 * holds one advisory lock until it commits, so ids are committed in increasing order: a reader
 * following with `after` (GET /v1/audit, `tabgate audit --follow`) never sees a later id before an
 * earlier one and so never skips a row. Folds are batches, so the lock is held once per batch.
 */
import type { Pool, PoolClient } from 'pg';
import {
  auditEntryOf,
  auditRowValues,
  contextText,
  INTERRUPTED,
  type AuditRow,
  type NewAuditEntry,
} from '../../audit/audit-entry.js';
import type { AuditRows } from '../store.js';
import { AUDIT_LOCK } from './migrations.js';

async function insertRows(
  client: PoolClient,
  rows: readonly { entry: NewAuditEntry; journalRef: string | null }[],
): Promise<void> {
  if (rows.length === 0) return;
  const params: unknown[] = [];
  const tuples: string[] = [];
  for (const row of rows) {
    const base = params.length;
    const values = auditRowValues(row.entry, row.journalRef);
    params.push(...values);
    tuples.push(`(${values.map((_, i) => `$${base + i + 1}`).join(', ')})`);
  }
  await client.query(
    `INSERT INTO audit_log (at_ms, session_id, principal_id, controller_id, backend, action, arguments,
         origin, outcome, duration_ms, tool_call_id, context, journal_ref)
       VALUES ${tuples.join(', ')}
       ON CONFLICT (journal_ref) DO NOTHING`,
    params,
  );
}

async function setOffset(client: PoolClient, file: string, folded: number): Promise<void> {
  await client.query(
    `INSERT INTO audit_journal (file, folded) VALUES ($1, $2)
       ON CONFLICT (file) DO UPDATE SET folded = excluded.folded`,
    [file, folded],
  );
}

async function offsetOf(client: Pool | PoolClient, file: string): Promise<number> {
  const { rows } = await client.query<{ folded: number }>(
    'SELECT folded FROM audit_journal WHERE file = $1',
    [file],
  );
  return rows[0]?.folded ?? 0;
}

const ignoreLost = (): void => undefined;

/** Runs `fn` in a transaction that holds the audit lock until it commits. */
async function locked<T>(pool: Pool, fn: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A connection cut while checked out (PostgreSQL restarting) emits 'error' on its client, and the pool
  // listens only to idle ones: unheard, it would end the process. The query in flight fails with it.
  client.on('error', ignoreLost);
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1, $2)', [...AUDIT_LOCK]);
    const value = await fn(client);
    await client.query('COMMIT');
    client.removeListener('error', ignoreLost);
    client.release();
    return value;
  } catch (error) {
    // A connection that failed mid-transaction is not handed out again: the pool drops it.
    const rolledBack = await client.query('ROLLBACK').then(
      () => true,
      () => false,
    );
    if (rolledBack) client.removeListener('error', ignoreLost);
    client.release(rolledBack ? undefined : (error as Error));
    throw error;
  }
}

/** Rows per INSERT: 12 parameters each, far under PostgreSQL's 65,535. */
const INSERT_BATCH = 500;

export function pgAudit(pool: Pool): AuditRows {
  return {
    fold: (rows, offsets) =>
      locked(pool, async (client) => {
        for (let i = 0; i < rows.length; i += INSERT_BATCH)
          await insertRows(client, rows.slice(i, i + INSERT_BATCH));
        for (const [file, folded] of offsets) await setOffset(client, file, folded);
      }),
    recover: (file, read) =>
      locked(pool, async (client) => {
        const chunk = read(await offsetOf(client, file));
        if (!chunk) return false;
        for (const line of chunk.lines) {
          if (line.kind === 'start') {
            await insertRows(client, [line]);
          } else {
            await client.query(
              `UPDATE audit_log SET outcome = $1, duration_ms = $2, origin = coalesce(origin, $3), context = $4
                 WHERE journal_ref = $5 AND outcome = $6`,
              [line.outcome, line.duration_ms, line.origin, contextText(line), line.journalRef, INTERRUPTED],
            );
          }
        }
        await setOffset(client, file, chunk.folded);
        return chunk.more;
      }),
    journalOffset: (file) => offsetOf(pool, file),
    async forgetJournal(file) {
      await pool.query('DELETE FROM audit_journal WHERE file = $1', [file]);
    },
    async list(query) {
      const where: string[] = [];
      const params: (string | number)[] = [];
      if (query.session !== undefined) {
        params.push(query.session);
        where.push(`session_id = $${params.length}`);
      }
      if (query.after !== undefined) {
        params.push(query.after);
        where.push(`id > $${params.length}`);
      }
      const clause = where.length > 0 ? `WHERE ${where.join(' AND ')}` : '';
      // Paging forward reads oldest first; the first page is the newest rows, still shown oldest first.
      const order = query.after !== undefined ? 'ASC' : 'DESC';
      params.push(query.limit);
      const { rows } = await pool.query<AuditRow>(
        `SELECT * FROM audit_log ${clause} ORDER BY id ${order} LIMIT $${params.length}`,
        params,
      );
      if (order === 'DESC') rows.reverse();
      return rows.map(auditEntryOf);
    },
    async purgeBefore(cutoffMs) {
      const { rowCount } = await pool.query('DELETE FROM audit_log WHERE at_ms < $1', [cutoffMs]);
      return rowCount ?? 0;
    },
  };
}
