/** Sessions in PostgreSQL: the same rows and answers as the SQLite store's (session-store.ts). */
import type { Pool } from 'pg';
import { SESSION_SQL, toRecord, type SessionRow as Row } from '../session-store.js';
import type { SessionRows } from '../store.js';

/**
 * The read every call of a cluster node makes (its session, which another node may have stopped or
 * rebound since), as a named statement: each pooled connection has it parsed and planned once, and then
 * only binds and executes it.
 */
const GET_SESSION = {
  name: 'tabgate_get_session',
  text: `SELECT * FROM sessions WHERE id = $1 AND ${SESSION_SQL.live}`,
} as const;

export function pgSessions(pool: Pool): SessionRows {
  const get = async (id: string) => {
    const { rows } = await pool.query<Row>({ ...GET_SESSION, values: [id] });
    return rows[0] ? toRecord(rows[0]) : null;
  };
  return {
    async insert(record) {
      const { session_id: id, title, source, principal_id: principal, created_at: at } = record;
      const revived = await pool.query(
        `UPDATE sessions SET retired_at = NULL, title = $1, source = $2, created_at = $3
           WHERE id = $4 AND principal_id = $5 AND retired_at IS NOT NULL`,
        [title, source, at, id, principal],
      );
      const inserted =
        revived.rowCount !== 1 &&
        (
          await pool.query(
            `INSERT INTO sessions (id, title, source, principal_id, created_at) VALUES ($1, $2, $3, $4, $5)
               ON CONFLICT (id) DO NOTHING`,
            [id, title, source, principal, at],
          )
        ).rowCount === 1;
      const { rows } = await pool.query<Row>('SELECT * FROM sessions WHERE id = $1', [id]);
      if (!rows[0]) throw new Error('session vanished right after insert');
      return { record: toRecord(rows[0]), created: revived.rowCount === 1 || inserted };
    },
    get,
    async list(principalId) {
      const { rows } = await pool.query<Row>(
        `SELECT * FROM sessions WHERE principal_id = $1 AND ${SESSION_SQL.live} ORDER BY created_at, id`,
        [principalId],
      );
      return rows.map(toRecord);
    },
    async setBinding(id, binding, at) {
      const { rowCount } = await pool.query(
        'UPDATE sessions SET binding = $1, binding_changed_at = $2, binding_controller_id = $3 WHERE id = $4',
        [binding?.state ?? null, at, binding?.controller_id ?? null, id],
      );
      return rowCount === 1;
    },
    async setStopped(id, stoppedAt) {
      const { rowCount } = await pool.query('UPDATE sessions SET stopped_at = $1 WHERE id = $2', [
        stoppedAt,
        id,
      ]);
      return rowCount === 1;
    },
    async delete(id, principalId, at) {
      const retired = await pool.query(
        `UPDATE sessions SET retired_at = $1
           WHERE id = $2 AND principal_id = $3 AND ${SESSION_SQL.live} AND ${SESSION_SQL.retire}`,
        [at, id, principalId],
      );
      if (retired.rowCount === 1) return true;
      const { rowCount } = await pool.query(
        `DELETE FROM sessions WHERE id = $1 AND principal_id = $2 AND ${SESSION_SQL.live}`,
        [id, principalId],
      );
      return rowCount === 1;
    },
  };
}
