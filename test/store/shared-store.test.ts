/**
 * Two gateway processes sharing one PostgreSQL (started by the test) behave as one for everything
 * durable: each sees the other's sessions and audit rows, and a site grant made through one is in
 * force on the other. `tabgate serve --store` with an unreachable database stops at once, naming the
 * URL with its password hidden, and no password ever reaches a log.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { cliEntry } from '../helpers/cli-entry.js';
import { runTabgate } from '../helpers/tabgate-cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { startChildGateway, type ChildGateway } from '../reliability/fixtures/child-gateway.js';
import { startPostgres, type TestPostgres } from './fixtures/postgres.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const PASSWORD = 'pw-that-must-never-show';

interface Session {
  session_id: string;
  sites: { granted: string[] };
}

describe('two gateways sharing one PostgreSQL', () => {
  let server: TestPostgres;
  let url: string;
  let a: ChildGateway;
  let b: ChildGateway;
  const homes: string[] = [];
  const home = () => {
    const dir = makeHome();
    homes.push(dir);
    return dir;
  };

  before(async () => {
    server = await startPostgres();
    url = await server.createDatabase('cluster');
    // Two nodes of one cluster: the same store, each its own home (journal, keys).
    const config = { store: { url }, audit: { all_backends: true }, safety: { mode: { local: 'ask' } } };
    [a, b] = await Promise.all([
      startChildGateway({ home: home(), config }),
      startChildGateway({ home: home(), config }),
    ]);
  });
  after(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await server?.stop();
    for (const dir of homes) fs.rmSync(dir, { recursive: true, force: true, maxRetries: 10 });
  });

  it('lists in GET /v1/sessions on one gateway the sessions created on the other', async () => {
    const created = await a.request('POST', '/v1/sessions', { title: 'made on A' });
    assert.equal(created.status, 201);
    const id = (created.body as Session).session_id;
    const listed = await b.request('GET', '/v1/sessions');
    assert.ok((listed.body as { sessions: Session[] }).sessions.some((s) => s.session_id === id));
    const fetched = await b.request('GET', `/v1/sessions/${id}`);
    assert.equal((fetched.body as { title: string }).title, 'made on A');
    assert.equal((await b.request('DELETE', `/v1/sessions/${id}`)).status, 200);
    assert.equal((await a.request('GET', `/v1/sessions/${id}`)).status, 404);
  });

  it('shows in GET /v1/audit on either gateway the calls both of them ran', async () => {
    const id = ((await a.request('POST', '/v1/sessions', {})).body as Session).session_id;
    const call = (gw: ChildGateway, callId: string) =>
      gw.request(
        'POST',
        `/v1/sessions/${id}/tools/browser_navigate`,
        { url: 'https://example.com/' },
        {
          'x-tool-call-id': callId,
        },
      );
    assert.equal((await call(a, 'call-on-a')).status, 200);
    assert.equal((await call(b, 'call-on-b')).status, 200);
    // Each gateway folds its own answered calls within 50 ms of their end; then every gateway sees them.
    for (const gw of [a, b]) {
      const ids = await waitFor(
        async () => {
          const audit = await gw.request('GET', `/v1/audit?session=${id}`);
          const rows = (audit.body as { entries: { tool_call_id: string }[] }).entries;
          return rows.length >= 2 && rows.map((e) => e.tool_call_id);
        },
        { what: "both gateways' rows in the audit log" },
      );
      // Rows are numbered as they commit, and each gateway folds on its own clock.
      assert.deepEqual(ids.sort(), ['call-on-a', 'call-on-b']);
    }
  });

  it("prints with tabgate audit, on either gateway's home, the rows of both", async () => {
    const id = ((await a.request('POST', '/v1/sessions', {})).body as Session).session_id;
    for (const [gw, callId] of [
      [a, 'cli-a'],
      [b, 'cli-b'],
    ] as const) {
      const answer = await gw.request(
        'POST',
        `/v1/sessions/${id}/tools/browser_navigate`,
        { url: 'https://example.com/' },
        { 'x-tool-call-id': callId },
      );
      assert.equal(answer.status, 200);
    }
    const printed = await waitFor(
      async () => {
        const result = await runTabgate(homes[1] as string, ['audit', '--session', id, '--json']);
        const ids = result.stdout
          .trim()
          .split('\n')
          .filter(Boolean)
          .map((line) => (JSON.parse(line) as { tool_call_id: string }).tool_call_id);
        return ids.length >= 2 && ids;
      },
      { what: "tabgate audit to print both gateways' rows" },
    );
    assert.deepEqual(printed.sort(), ['cli-a', 'cli-b']);
  });

  it('puts a site grant made on one gateway in force on the other', async () => {
    const id = ((await a.request('POST', '/v1/sessions', {})).body as Session).session_id;
    const granted = await a.request(
      'POST',
      `/v1/sessions/${id}/site-grants`,
      { site: 'granted.example' },
      { authorization: `Bearer ${a.operatorKey}` },
    );
    assert.equal(granted.status, 200);
    await waitFor(
      async () => {
        const seen = await b.request('GET', `/v1/sessions/${id}`);
        return (seen.body as Session).sites.granted.includes('granted.example');
      },
      { what: 'the grant made on A to be in force on B' },
    );
    const revoked = await b.request(
      'POST',
      `/v1/sessions/${id}/site-grants/revoke`,
      { site: 'granted.example' },
      { authorization: `Bearer ${b.operatorKey}` },
    );
    assert.equal(revoked.status, 200);
    await waitFor(
      async () => {
        const seen = await a.request('GET', `/v1/sessions/${id}`);
        return (seen.body as Session).sites.granted.length === 0;
      },
      { what: 'the revoke made on B to be in force on A' },
    );
  });

  it('serves with --store, keeping the password out of everything it prints, even when it loses the store', async () => {
    const withPassword = url.replace('tabgate@', `tabgate:${PASSWORD}@`);
    const dir = home();
    const child = spawn(process.execPath, [...cliEntry(), 'serve', '--port', '0', '--store', withPassword], {
      cwd: root,
      env: { ...process.env, TABGATE_HOME: dir, API_SERVER_KEY: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      await waitFor(() => output.includes('tabgate listening on'), {
        what: 'serve to listen',
        within: 30_000,
      });
      assert.match(output, /store opened.*postgres:\/\/tabgate:\*\*\*@127\.0\.0\.1/);
      // Every connection of the gateway is cut: it says so (a lost change feed) without the password.
      const admin = new pg.Client({ connectionString: server.url });
      await admin.connect();
      await admin.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'tabgate'",
      );
      await admin.end();
      await waitFor(() => output.includes('store change feed lost'), { what: 'the lost feed to be logged' });
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
    assert.ok(!output.includes(PASSWORD), output);
  });

  it('refuses to start when the store cannot be reached, naming the URL with the password hidden', async () => {
    const unreachable = `postgres://tabgate:${PASSWORD}@127.0.0.1:1/nowhere`;
    const result = await runTabgate(home(), ['serve', '--port', '0', '--store', unreachable]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /cannot use the PostgreSQL store at postgres:\/\/tabgate:\*\*\*@127\.0\.0\.1:1\/nowhere/,
    );
    assert.ok(!(result.stderr + result.stdout).includes(PASSWORD));
  });
});
