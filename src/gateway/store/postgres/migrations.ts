/**
 * The PostgreSQL schema, as versioned steps applied at start: the same tables and meaning as the
 * SQLite file's (database.ts), plus a trigger on the tables gateways cache, which announces every
 * change on the `tabgate_changes` channel so that each gateway drops what it holds. Step N brings the
 * schema from version N to N+1; append only, never edit a shipped step. Gateways starting together
 * take turns through an advisory lock, so each step runs once.
 */
import type { Pool, PoolClient } from 'pg';

export const CHANGES_CHANNEL = 'tabgate_changes';
/** Advisory lock keys of ours (two int4 halves: 'tg' and a purpose). */
export const MIGRATION_LOCK = [0x7467, 1] as const;
export const AUDIT_LOCK = [0x7467, 2] as const;

const MIGRATIONS: readonly string[] = [
  `CREATE TABLE sessions (
     id TEXT PRIMARY KEY,
     title TEXT,
     source TEXT NOT NULL,
     principal_id TEXT NOT NULL,
     created_at TEXT NOT NULL,
     binding TEXT,
     binding_changed_at TEXT,
     binding_controller_id TEXT,
     stopped_at TEXT
   );
   CREATE INDEX sessions_by_principal ON sessions (principal_id, created_at);
   CREATE TABLE site_grants (
     session_id TEXT NOT NULL,
     site TEXT NOT NULL,
     state TEXT NOT NULL,
     changed_at TEXT NOT NULL,
     seq BIGSERIAL NOT NULL,
     PRIMARY KEY (session_id, site)
   );
   CREATE TABLE pairing_grants (
     grant_id TEXT PRIMARY KEY,
     secret_hash BYTEA NOT NULL,
     name TEXT NOT NULL,
     origin TEXT NOT NULL,
     created_at TEXT NOT NULL,
     last_used_at TEXT,
     revoked_at TEXT
   );
   CREATE TABLE audit_log (
     id BIGSERIAL PRIMARY KEY,
     at_ms BIGINT NOT NULL,
     session_id TEXT NOT NULL,
     principal_id TEXT NOT NULL,
     controller_id TEXT,
     backend TEXT NOT NULL,
     action TEXT NOT NULL,
     arguments TEXT NOT NULL,
     origin TEXT,
     outcome TEXT NOT NULL,
     duration_ms DOUBLE PRECISION NOT NULL,
     tool_call_id TEXT,
     journal_ref TEXT UNIQUE
   );
   CREATE INDEX audit_by_session ON audit_log (session_id, id);
   CREATE INDEX audit_by_time ON audit_log (at_ms);
   CREATE TABLE audit_journal (
     file TEXT PRIMARY KEY,
     folded BIGINT NOT NULL
   );
   CREATE FUNCTION tabgate_notify_change() RETURNS trigger AS $$
   DECLARE
     changed record;
   BEGIN
     IF TG_OP = 'DELETE' THEN changed := OLD; ELSE changed := NEW; END IF;
     PERFORM pg_notify('${CHANGES_CHANNEL}', TG_TABLE_NAME || ' ' || (to_jsonb(changed) ->> TG_ARGV[0]));
     RETURN NULL;
   END
   $$ LANGUAGE plpgsql;
   CREATE TRIGGER sessions_changed AFTER INSERT OR UPDATE OR DELETE ON sessions
     FOR EACH ROW EXECUTE FUNCTION tabgate_notify_change('id');
   CREATE TRIGGER site_grants_changed AFTER INSERT OR UPDATE OR DELETE ON site_grants
     FOR EACH ROW EXECUTE FUNCTION tabgate_notify_change('session_id');
   CREATE TRIGGER pairing_grants_changed AFTER INSERT OR UPDATE OR DELETE ON pairing_grants
     FOR EACH ROW EXECUTE FUNCTION tabgate_notify_change('grant_id');`,
  // As SQLite's step 7: what some audit rows carry besides the call (audit-entry.ts).
  `ALTER TABLE audit_log ADD COLUMN context TEXT;`,
  // As SQLite's step 8: a bound session its agent deleted stays, hidden (session-store.ts).
  `ALTER TABLE sessions ADD COLUMN retired_at TEXT;`,
];

/** The schema version this tabgate writes. */
export const SCHEMA_VERSION = MIGRATIONS.length;

async function inTransaction(client: PoolClient, fn: () => Promise<void>): Promise<void> {
  await client.query('BEGIN');
  try {
    await fn();
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** Brings the database to SCHEMA_VERSION; refuses one a newer tabgate wrote. Returns the steps applied. */
export async function migrate(pool: Pool): Promise<number> {
  const client = await pool.connect();
  // A connection cut while checked out (PostgreSQL restarting, an operator's pg_terminate_backend)
  // emits 'error' on its client, and the pool listens only to idle ones: unheard, it would end the
  // process. The query in flight fails with it, and so does the start, with the store's clear error.
  let lost: Error | undefined;
  const onLost = (error: Error) => void (lost = error);
  client.on('error', onLost);
  try {
    await client.query('SELECT pg_advisory_lock($1, $2)', [...MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS tabgate_schema (
         version INTEGER PRIMARY KEY,
         applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await client.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM tabgate_schema',
    );
    const current = rows[0]?.version ?? 0;
    if (current > SCHEMA_VERSION) {
      throw new Error(
        `the database has tabgate schema version ${current}, newer than this tabgate knows (${SCHEMA_VERSION}); upgrade tabgate`,
      );
    }
    for (let version = current; version < SCHEMA_VERSION; version++) {
      await inTransaction(client, async () => {
        await client.query(MIGRATIONS[version] as string);
        await client.query('INSERT INTO tabgate_schema (version) VALUES ($1)', [version + 1]);
      });
    }
    return SCHEMA_VERSION - current;
  } finally {
    const unlocked = await client.query('SELECT pg_advisory_unlock($1, $2)', [...MIGRATION_LOCK]).then(
      () => true,
      () => false,
    );
    // A connection that failed is not handed out again: the pool drops it (and keeps its listener).
    if (unlocked && !lost) client.removeListener('error', onLost);
    client.release(unlocked && !lost ? undefined : (lost ?? new Error('migration connection failed')));
  }
}
