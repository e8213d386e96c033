/** Sessions in PostgreSQL: the same rows and answers as the SQLite store's (session-store.ts). */
import type { Pool } from 'pg';
import { toRecord, type SessionRow as Row } from '../session-store.js';
import type { SessionRows } from '../store.js';

export function pgSessions(pool: Pool): SessionRows {
  const get = async (id: string) => {
    const { rows } = await pool.query<Row>('SELECT * FROM sessions WHERE id = $1', [id]);
    return rows[0] ? toRecord(rows[0]) : null;
  };
  return {
    async insert(record) {
      const { rowCount } = await pool.query(
        `INSERT INTO sessions (id, title, source, principal_id, created_at) VALUES ($1, $2, $3, $4, $5)
           ON CONFLICT (id) DO NOTHING`,
        [record.session_id, record.title, record.source, record.principal_id, record.created_at],
      );
      const stored = await get(record.session_id);
      if (!stored) throw new Error('session vanished right after insert');
      return { record: stored, created: rowCount === 1 };
    },
    get,
    async list(principalId) {
      const { rows } = await pool.query<Row>(
        'SELECT * FROM sessions WHERE principal_id = $1 ORDER BY created_at, id',
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
    async delete(id, principalId) {
      const { rowCount } = await pool.query('DELETE FROM sessions WHERE id = $1 AND principal_id = $2', [
        id,
        principalId,
      ]);
      return rowCount === 1;
    },
  };
}
