/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The cluster's PostgreSQL restarts under load. What a user relies on: the calls of a session already
 * routed to a user's browser go on, or are refused with a typed code (never a 500, never a dropped
 * connection, never a node that crashed), and once the database is back every node serves again with
 * the session, the pairing grant and an audit row for every call an agent was answered.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXTENSION_ORIGIN, REGISTER_PATH } from '../../src/protocol/index.js';
import { asOperator, pairedToken } from '../extension/pairing-helpers.js';
import { registrationBody, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { answerFirstCommand, firstCall } from './broker-suite.js';
import { autoAnswer, startCallLoad, tally, type CallOutcome } from './fixtures/call-load.js';
import { usePostgresCluster } from './fixtures/cluster-nodes.js';

/** Every audit row of the session, through one node, paging with `after`. */
async function auditRows(gw: TestGateway, sessionId: string) {
  const rows: { tool_call_id: string | null; outcome: string }[] = [];
  let after = 0;
  for (;;) {
    const page = await gw.request('GET', `/v1/audit?session=${sessionId}&after=${after}&limit=500`);
    assert.equal(page.status, 200, JSON.stringify(page.body));
    const entries = page.body.entries as typeof rows;
    rows.push(...entries);
    if (entries.length < 500) return rows;
    after = Number(page.body.next_after);
  }
}

async function registerPaired(gw: TestGateway, token: string, sessionId: string) {
  return gw.request('POST', REGISTER_PATH, {
    body: registrationBody({ sessionId }),
    headers: { authorization: `Bearer ${token}`, origin: EXTENSION_ORIGIN },
  });
}

describe('a cluster whose PostgreSQL restarts', () => {
  const fixture = usePostgresCluster(2);

  it('answers every call or refuses it typed, and loses no session, grant or audit row', async () => {
    const nodes = fixture.gateways() as [TestGateway, TestGateway];
    const [a, b] = nodes;
    const { token, grantId } = await pairedToken(a);
    const sessionId = await a.createSession();
    const registered = await registerPaired(a, token, sessionId);
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    const controller = await TestController.open(b, registered.body.ticket as string, {
      origin: EXTENSION_ORIGIN,
    });
    const served = await firstCall(a, sessionId, answerFirstCommand(controller));
    assert.equal(served.status, 200, JSON.stringify(served.body));
    const seen: string[] = [];
    autoAnswer(controller.ws, seen);

    const load = startCallLoad(nodes, sessionId, { workers: 4, prefix: 'pg' });
    let outcomes: CallOutcome[];
    try {
      await waitFor(() => load.count(200) >= 20, { what: '20 calls answered before the restart' });
      await fixture.postgres.halt();
      const refusedAt = load.outcomes.length;
      await waitFor(() => load.outcomes.length >= refusedAt + 20, { what: '20 calls while it is down' });
      await fixture.postgres.start();
      const backAt = load.outcomes.length;
      await waitFor(() => load.outcomes.slice(backAt).filter((o) => o.status === 200).length >= 20, {
        what: '20 calls answered once it is back',
        within: 30_000,
      });
    } finally {
      outcomes = await load.stop();
    }

    const counts = tally(outcomes);
    console.log(`calls through a PostgreSQL restart: ${JSON.stringify(counts)}`);
    for (const key of Object.keys(counts))
      assert.ok(['200 ok', '503 cluster_unavailable'].includes(key), JSON.stringify(counts));
    assert.ok(counts['503 cluster_unavailable'], `no call met the outage: ${JSON.stringify(counts)}`);
    for (const node of fixture.cluster.nodes) assert.equal(node.child.exitCode, null, node.output.join(''));

    // The session, the grant and the socket are still there, on both nodes.
    for (const gw of nodes) {
      const listed = await gw.request('GET', '/v1/sessions');
      assert.ok(JSON.stringify(listed.body).includes(sessionId), JSON.stringify(listed.body));
      const pairings = await gw.request('GET', '/v1/pairings', { headers: asOperator(gw) });
      assert.ok(JSON.stringify(pairings.body).includes(grantId), JSON.stringify(pairings.body));
    }
    assert.equal(controller.ws.readyState, controller.ws.OPEN, 'the controller socket stayed open');
    assert.equal((await registerPaired(b, token, sessionId)).status, 201, 'the pairing token still works');

    // Every answered call has its row, with what the agent was told, seen through either node.
    const answered = outcomes.filter((o) => o.status === 200);
    for (const gw of nodes) {
      const rows = await waitFor(
        async () => {
          const all = await auditRows(gw, sessionId);
          const ids = new Set(all.map((r) => r.tool_call_id));
          return answered.every((o) => ids.has(o.toolCallId)) && all;
        },
        { what: 'an audit row for every answered call', within: 15_000 },
      );
      const byId = new Map(rows.map((r) => [r.tool_call_id, r.outcome]));
      for (const o of outcomes) {
        const outcome = byId.get(o.toolCallId);
        if (outcome !== undefined) assert.equal(outcome, o.code, o.toolCallId);
      }
    }
    await controller.close();
  });
});
