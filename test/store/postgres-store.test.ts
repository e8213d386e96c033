/**
 * The store suite on a real PostgreSQL the test starts, and what only a shared store does: tell each
 * gateway what another changed (a revoked pairing, a site grant), and start over after a lost feed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { PairingGrants } from '../../src/gateway/pairing/grant-mirror.js';
import { MIGRATION_LOCK } from '../../src/gateway/store/postgres/migrations.js';
import { PostgresStore } from '../../src/gateway/store/postgres/postgres-store.js';
import { StoreUnavailableError } from '../../src/gateway/start-errors.js';
import type { StoreChange } from '../../src/gateway/store/store.js';
import { waitFor } from '../helpers/wait-for.js';
import { startPostgres, type TestPostgres } from './fixtures/postgres.js';
import { describeStore } from './store-cases.js';

let started: Promise<TestPostgres> | null = null;
const server = () => (started ??= startPostgres());
after(async () => {
  if (started) await (await started).stop();
});

describeStore('PostgreSQL', async () => {
  const url = await (await server()).createDatabase('conformance');
  return { open: () => PostgresStore.open({ url }), dispose: () => Promise.resolve() };
});

describe('PostgreSQL store shared by two gateways', () => {
  let url: string;
  let one: PostgresStore;
  let two: PostgresStore;
  before(async () => {
    url = await (await server()).createDatabase('shared');
    one = await PostgresStore.open({ url });
    two = await PostgresStore.open({ url });
  });
  after(async () => {
    await one?.close();
    await two?.close();
  });

  it('tells a gateway of a site grant another one made', async () => {
    const seen: StoreChange[] = [];
    const stop = two.onChange((change) => seen.push(change));
    await one.siteGrants.grant('s_feed', 'a.example', 't1');
    await waitFor(() => seen.some((c) => c.table === 'site_grants' && c.key === 's_feed'), {
      what: 'the grant to be announced',
    });
    stop();
  });

  it('closes on every gateway what a pairing revoked on one of them held', async () => {
    const here = await PairingGrants.load(one.pairingGrants, () => undefined);
    const there = await PairingGrants.load(two.pairingGrants, () => undefined);
    const stop = two.onChange((change) => void there.storeChanged(change));
    const revokedThere: string[] = [];
    there.onRevoked((id) => revokedThere.push(id));
    const revokedHere: string[] = [];
    here.onRevoked((id) => revokedHere.push(id));
    const secretHash = Buffer.alloc(32, 7);
    await here.insert({
      grantId: 'g_feed',
      secretHash,
      name: 'Laptop',
      origin: 'chrome-extension://x',
      createdAt: 't0',
    });
    await waitFor(() => there.liveSecretHash('g_feed')?.equals(secretHash), {
      what: 'the new grant to be usable on the other gateway',
    });
    assert.equal(await here.revoke('g_feed', new Date(Date.UTC(2026, 0, 2))), true);
    assert.equal(here.liveSecretHash('g_feed'), null);
    await waitFor(() => revokedThere.includes('g_feed'), { what: 'the revoke to reach the other gateway' });
    assert.equal(there.liveSecretHash('g_feed'), null);
    assert.deepEqual(revokedHere, [], 'the revoking gateway tells its own listeners itself, once');
    stop();
  });

  it('asks to reload everything once its lost change feed is back', async () => {
    const seen: StoreChange[] = [];
    const stop = one.onChange((change) => seen.push(change));
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid()",
      );
    } finally {
      await admin.end();
    }
    await waitFor(() => seen.some((c) => c.table === '*'), { what: 'a reload-everything change' });
    // And it listens again: a change made now is announced.
    await two.siteGrants.grant('s_after_loss', 'b.example', 't2');
    await waitFor(() => seen.some((c) => c.key === 's_after_loss'), { what: 'a change after the reconnect' });
    stop();
  });
});

describe('PostgreSQL dropping the connection that migrates at start-up', () => {
  it('fails the start with a clear error instead of ending the process', async () => {
    const url = await (await server()).createDatabase('migrate_drop');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      // Another gateway migrating: this one's migration waits for the lock, on a checked-out connection.
      await admin.query('SELECT pg_advisory_lock($1, $2)', [...MIGRATION_LOCK]);
      const opening = PostgresStore.open({ url });
      const outcome = opening.then(
        () => 'opened',
        (error: unknown) => error,
      );
      await waitFor(
        async () =>
          (
            await admin.query(
              "SELECT pid FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND query LIKE '%pg_advisory_lock%' AND pid <> pg_backend_pid()",
            )
          ).rowCount === 1,
        { what: 'the migration to wait for the lock' },
      );
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND pid <> pg_backend_pid()",
      );
      const error = await outcome;
      assert.ok(error instanceof StoreUnavailableError, String(error));
      assert.match(error.message, /cannot use the PostgreSQL store at postgres/);
    } finally {
      await admin.end();
    }
  });
});
