/**
 * Redis stops taking writes for a while (`CLIENT PAUSE <ms> WRITE`, as during a failover or a manual
 * pause) under load. What a user relies on: each call completes, or fails with a typed code, within its
 * deadline (a short pause only delays calls; a longer one ends the waiting ones by their deadline), and
 * once the pause is over every node serves the same controller again, nothing dropped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { register, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { answerFirstCommand, callTool, firstCall } from './broker-suite.js';
import { autoAnswer, startCallLoad, tally } from './fixtures/call-load.js';
import { useCluster } from './fixtures/cluster-nodes.js';

const DEADLINE_MS = 2000;
/** Slack for a loaded 2-core machine: a call that waited out the pause instead takes seconds more. */
const SLACK_MS = 1500;

describe('a cluster whose Redis pauses writes', () => {
  const fixture = useCluster(2, {
    browser: { extension_control: { enabled: true, command_timeout: DEADLINE_MS / 1000 } },
  });

  for (const pauseMs of [500, 3 * DEADLINE_MS]) {
    it(`answers every call within its deadline through a ${pauseMs} ms pause, and serves after it`, async () => {
      const nodes = fixture.gateways() as [TestGateway, TestGateway];
      const [a, b] = nodes;
      const sessionId = await a.createSession();
      const controller = await TestController.open(b, await register(a, { sessionId }));
      const served = await firstCall(a, sessionId, answerFirstCommand(controller));
      assert.equal(served.status, 200, JSON.stringify(served.body));
      const seen: string[] = [];
      autoAnswer(controller.ws, seen);

      const load = startCallLoad(nodes, sessionId, { workers: 4, prefix: `pause${pauseMs}` });
      const outcomes = await (async () => {
        try {
          await waitFor(() => load.count(200) >= 10, { what: '10 calls answered before the pause' });
          assert.equal(fixture.redis.cli('CLIENT', 'PAUSE', String(pauseMs), 'WRITE'), 'OK');
          const pausedAt = load.outcomes.length;
          // Past the pause: calls made during it have ended, and new ones are answered again.
          await waitFor(() => load.outcomes.slice(pausedAt).filter((o) => o.status === 200).length >= 10, {
            what: '10 calls answered after the pause',
            within: pauseMs + 15_000,
          });
        } finally {
          await load.stop();
        }
        return load.outcomes;
      })();

      const counts = tally(outcomes);
      console.log(`calls through a ${pauseMs} ms write pause: ${JSON.stringify(counts)}`);
      for (const key of Object.keys(counts))
        assert.ok(
          [
            '200 ok',
            '504 controller_timeout',
            '503 cluster_unavailable',
            '503 controller_unavailable',
          ].includes(key),
          JSON.stringify(counts),
        );
      const slowest = Math.max(...outcomes.map((o) => o.ms));
      assert.ok(slowest < DEADLINE_MS + SLACK_MS, `a call took ${Math.round(slowest)} ms`);
      if (pauseMs < DEADLINE_MS) assert.deepEqual(Object.keys(counts), ['200 ok'], JSON.stringify(counts));
      assert.equal(new Set(seen).size, seen.length, 'no command reached the controller twice');

      assert.equal(controller.ws.readyState, controller.ws.OPEN, 'the controller socket stayed open');
      for (const gw of nodes) assert.equal((await callTool(gw, sessionId)).status, 200);
      await controller.close();
    });
  }
});
