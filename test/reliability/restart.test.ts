/**
 * Restart: the gateway is killed with SIGKILL while agents are calling tools in users' browsers, then
 * started again on the same home and port. What was committed must still be there (sessions, pairing
 * grants, the audit row of every answered call), and controllers must come back without help.
 * Bounded: 4 controllers, 60 calls before the kill. Full (SOAK=1): 20 controllers, 2,000 calls.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { openAuditReader } from '../../src/cli/commands/audit.js';
import { EXTENSION_ORIGIN } from '../../src/protocol/index.js';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { callTool, type CallOutcome } from './fixtures/agent.js';
import { startChildGateway, type ChildGateway } from './fixtures/child-gateway.js';
import { echoOf, ResilientController } from './fixtures/resilient-controller.js';
import { scaled } from './fixtures/scale.js';
import { waitFor } from '../helpers/wait-for.js';

const CONTROLLERS = scaled(4, 20);
const CALLS = scaled(60, 2000);

interface Json {
  [key: string]: unknown;
}

/** Pairs an extension the way the real one does: ask with its Origin, approve by code, collect. */
async function pair(gw: ChildGateway): Promise<{ token: string; grantId: string }> {
  const ext = { origin: EXTENSION_ORIGIN, authorization: '' };
  const started = (await gw.request('POST', '/v1/browser-control/pair', { name: 'restart test' }, ext))
    .body as Json;
  const approved = await gw.request(
    'POST',
    '/v1/pairings/approve',
    { code: started.code },
    { authorization: `Bearer ${gw.operatorKey}` },
  );
  assert.equal(approved.status, 200);
  const collected = await gw.request(
    'POST',
    `/v1/browser-control/pair/${String(started.pairing_id)}/token`,
    {},
    ext,
  );
  const body = collected.body as Json;
  return { token: String(body.token), grantId: String(body.grant_id) };
}

describe(`restart: kill -9 under load (${CONTROLLERS} controllers, ${CALLS} calls) and start again`, () => {
  const home = makeHome();
  let gw: ChildGateway;
  const controllers: ResilientController[] = [];
  const sessions: string[] = [];
  const answered: { id: string; outcome: CallOutcome }[] = [];
  let grant: { token: string; grantId: string };
  let connectsBeforeRestart = 0;

  before(async () => {
    gw = await startChildGateway({ home });
    for (let i = 0; i < CONTROLLERS; i++) {
      const created = await gw.request('POST', '/v1/sessions', { title: `s${i}` });
      const sessionId = String((created.body as Json).session_id);
      sessions.push(sessionId);
      const controller = new ResilientController({
        baseUrl: gw.url,
        key: gw.key,
        sessionId,
        controllerId: `c${i}`,
      });
      controllers.push(controller);
    }
    await Promise.all(controllers.map((c) => c.start()));
    grant = await pair(gw);

    // Load: calls in flight on every session, and the kill lands in the middle of them.
    let next = 0;
    let killed = false;
    const worker = async (s: number) => {
      while (next < CALLS * 2 && !killed) {
        const id = `r-${next++}`;
        const outcome = await callTool({
          baseUrl: gw.url,
          key: gw.key,
          sessionId: sessions[s] as string,
          tool: 'browser_navigate',
          args: { url: `https://restart.example/${id}` },
          toolCallId: id,
          guardMs: 10_000,
        });
        if (outcome.outcome === 'ok') answered.push({ id, outcome });
      }
    };
    let loadEnded = false;
    const load = Promise.all(sessions.map((_, s) => worker(s))).finally(() => (loadEnded = true));
    // The kill lands once CALLS calls were answered, in the middle of the rest.
    await waitFor(() => answered.length >= CALLS || loadEnded, {
      what: `${CALLS} answered calls`,
      within: 120_000,
      every: 5,
    });
    assert.ok(answered.length >= CALLS, `the load ended with ${answered.length} of ${CALLS} calls answered`);
    await gw.kill9();
    killed = true;
    await load;
    connectsBeforeRestart = controllers.reduce((n, c) => n + c.connects, 0);
    gw = await startChildGateway({ home, port: gw.port });
  });

  after(async () => {
    await Promise.all(controllers.map((c) => c.stop()));
    await gw.stop();
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
  });

  it('keeps the audit row of every call answered before the kill', async () => {
    const reader = await openAuditReader(home);
    try {
      const logged = new Set<string | null>();
      let after = 0;
      for (;;) {
        const page = await reader.store.list({ after, limit: 1000 });
        if (page.length === 0) break;
        for (const entry of page) logged.add(entry.tool_call_id);
        after = page.at(-1)?.id ?? after;
      }
      assert.deepEqual(
        answered.filter(({ id }) => !logged.has(id)).map(({ id }) => id),
        [],
      );
    } finally {
      await reader.close();
    }
  });

  it('keeps the sessions', async () => {
    const listed = (await gw.request('GET', '/v1/sessions')).body as { sessions: { session_id: string }[] };
    const ids = new Set(listed.sessions.map((s) => s.session_id));
    for (const sessionId of sessions) assert.ok(ids.has(sessionId), `session ${sessionId} survived`);
  });

  it('keeps the pairing grant, and its token still authenticates', async () => {
    const listed = (
      await gw.request('GET', '/v1/pairings', undefined, { authorization: `Bearer ${gw.operatorKey}` })
    ).body as { grants: { grant_id: string }[] };
    assert.ok(listed.grants.some((g) => g.grant_id === grant.grantId));
    const capabilities = await gw.request('GET', '/v1/capabilities', undefined, {
      authorization: `Bearer ${grant.token}`,
    });
    assert.equal(capabilities.status, 200);
  });

  it('sees every controller reconnect on its own and serve calls again', async () => {
    await waitFor(() => controllers.every((c) => c.connected), {
      what: 'every controller to be connected again',
      every: 20,
    });
    assert.ok(controllers.reduce((n, c) => n + c.connects, 0) >= connectsBeforeRestart + CONTROLLERS);
    for (const [s, sessionId] of sessions.entries()) {
      const url = `https://restart.example/after/${s}`;
      const outcome = await callTool({
        baseUrl: gw.url,
        key: gw.key,
        sessionId,
        tool: 'browser_navigate',
        args: { url },
        guardMs: 10_000,
      });
      assert.equal(outcome.outcome, 'ok');
      assert.equal(echoOf(outcome.result).echo_url, url);
    }
  });
});
