/**
 * A gateway whose PostgreSQL goes away answers the calls that need it with 503 `cluster_unavailable`
 * at once, never with a password or a 500, and serves again by itself when the database is back, with
 * everything it had stored.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { startChildGateway, type ChildGateway } from '../reliability/fixtures/child-gateway.js';
import { startPostgres, type TestPostgres } from './fixtures/postgres.js';

const PASSWORD = 'outage-secret-pw';

describe('a gateway whose PostgreSQL restarts', () => {
  let server: TestPostgres;
  let gw: ChildGateway;
  const home = makeHome();
  before(async () => {
    server = await startPostgres();
    const url = (await server.createDatabase('outage')).replace('tabgate@', `tabgate:${PASSWORD}@`);
    gw = await startChildGateway({ home, config: { store: { url } } });
  });
  after(async () => {
    await gw?.stop();
    await server?.stop();
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
  });

  it('answers 503 cluster_unavailable while it is down, and serves what it stored once it is back', async () => {
    const created = await gw.request('POST', '/v1/sessions', { title: 'before the outage' });
    assert.equal(created.status, 201);
    const id = (created.body as { session_id: string }).session_id;

    await server.halt();
    for (const [method, path, body] of [
      ['GET', '/v1/sessions', undefined],
      ['POST', '/v1/sessions', {}],
      ['POST', `/v1/sessions/${id}/tools/browser_snapshot`, {}],
    ] as const) {
      const answer = await gw.request(method, path, body);
      assert.equal(answer.status, 503, `${method} ${path}`);
      assert.equal((answer.body as { error: { code: string } }).error.code, 'cluster_unavailable');
      assert.ok(!JSON.stringify(answer.body).includes(PASSWORD));
    }

    await server.start();
    const listed = await waitFor(
      async () => {
        const answer = await gw.request('GET', '/v1/sessions');
        return answer.status === 200 && (answer.body as { sessions: { session_id: string }[] }).sessions;
      },
      { what: 'the gateway to serve again once PostgreSQL is back' },
    );
    assert.deepEqual(
      listed.map((s) => s.session_id),
      [id],
    );
    assert.ok(!gw.stderr().includes(PASSWORD), gw.stderr());
  });
});
