/**
 * The owner's Stop against calls that are just starting on other nodes: a call that read its session
 * before the Stop was stored, and reaches its dispatch after the Stop cancelled what was in flight,
 * must not slip through. Once Stop has returned, no command of the session reaches the controller
 * through any node, and every call refused is refused as on one gateway (`session_stopped_by_owner`).
 * Resume lets calls through again.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { register, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { asOperator } from '../extension/pairing-helpers.js';
import { waitFor } from '../helpers/wait-for.js';
import { answerFirstCommand, callTool, firstCall } from './broker-suite.js';
import { autoAnswer, startCallLoad, tally } from './fixtures/call-load.js';
import { useCluster } from './fixtures/cluster-nodes.js';

const ROUNDS = 6;
const WORKERS = 10;

describe('the owner’s Stop racing calls through the other nodes', () => {
  const fixture = useCluster(3);

  it(`lets no command reach the controller after Stop returned (${ROUNDS} rounds)`, async () => {
    const [a, b, c] = fixture.gateways() as [TestGateway, TestGateway, TestGateway];
    const sessionId = await a.createSession();
    // Stop is taken on A, which also holds the socket; the calls come through B and C.
    const controller = await TestController.open(a, await register(a, { sessionId }));
    assert.equal((await firstCall(b, sessionId, answerFirstCommand(controller))).status, 200);
    const seen: string[] = [];
    autoAnswer(controller.ws, seen);

    for (let round = 0; round < ROUNDS; round++) {
      const load = startCallLoad([b, c], sessionId, { workers: WORKERS, prefix: `r${round}` });
      // Calls are flowing through both nodes before the Stop.
      await waitFor(() => load.count(200) >= 2 * WORKERS, { what: 'calls to flow' });
      const stopped = await a.request('POST', `/v1/sessions/${sessionId}/stop`, {
        body: {},
        headers: asOperator(a),
      });
      const seenWhenStopReturned = seen.length;
      assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
      const outcomes = await load.stop();
      // Every call has been answered; whatever the gateway wrote to the socket before it answers a
      // ping sent now has arrived.
      const pong = once(controller.ws, 'pong');
      controller.ws.ping();
      await pong;
      assert.deepEqual(
        seen.slice(seenWhenStopReturned),
        [],
        `commands reached the controller after Stop returned (round ${round})`,
      );
      const codes = new Set(outcomes.map((o) => o.code));
      for (const code of codes)
        assert.ok(code === 'ok' || code === 'session_stopped_by_owner', JSON.stringify(tally(outcomes)));
      assert.ok(codes.has('session_stopped_by_owner'), JSON.stringify(tally(outcomes)));

      const resumed = await c.request('POST', `/v1/sessions/${sessionId}/resume`, {
        body: {},
        headers: asOperator(c),
      });
      assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
      for (const node of [a, b, c]) {
        const after = await callTool(node, sessionId);
        assert.equal(after.status, 200, `a call through each node runs again: ${JSON.stringify(after.body)}`);
      }
    }
    await controller.close();
  });
});
