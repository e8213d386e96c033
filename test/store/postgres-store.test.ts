import { PostgresStore } from '../../src/gateway/store/postgres/postgres-store.js';
import { startPostgres } from './fixtures/postgres.js';
import { describeStore } from './store-cases.js';

describeStore('PostgreSQL', async () => {
  const server = await startPostgres();
  const url = await server.createDatabase('conformance');
  return {
    open: () => PostgresStore.open({ url }),
    dispose: () => server.stop(),
  };
});
