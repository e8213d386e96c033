/**
 * Load: many connected controllers and many concurrent agents on one gateway (its own process, so the
 * test's own clients do not share its event loop). Prints p50/p99 latency and the error rate; asserts
 * that every call got its own result. Bounded: 100 controllers, 20 agents, 1,000 calls. Full (SOAK=1):
 * 1,000 controllers, 200 agents, 20,000 calls.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { callTool, type CallOutcome } from './fixtures/agent.js';
import { startChildGateway, type ChildGateway } from './fixtures/child-gateway.js';
import { echoOf, ResilientController } from './fixtures/resilient-controller.js';
import { percentile, scaled, SEED, seededRandom } from './fixtures/scale.js';

const CONTROLLERS = scaled(100, 1000);
const AGENTS = scaled(20, 200);
const CALLS = scaled(1000, 20_000);
const CONNECT_BATCH = 50;

describe(`load: ${CONTROLLERS} controllers, ${AGENTS} concurrent agents, ${CALLS} calls`, () => {
  const home = makeHome();
  const random = seededRandom(SEED);
  let gw: ChildGateway;
  const controllers: ResilientController[] = [];
  const sessions: string[] = [];
  const results: { controller: number; url: string; outcome: CallOutcome }[] = [];

  before(async () => {
    gw = await startChildGateway({ home });
    for (let i = 0; i < CONTROLLERS; i++) {
      const created = await gw.request('POST', '/v1/sessions', {});
      const sessionId = String((created.body as { session_id: string }).session_id);
      sessions.push(sessionId);
      controllers.push(
        new ResilientController({ baseUrl: gw.url, key: gw.key, sessionId, controllerId: `load-${i}` }),
      );
    }
    for (let i = 0; i < controllers.length; i += CONNECT_BATCH)
      await Promise.all(controllers.slice(i, i + CONNECT_BATCH).map((c) => c.start()));

    let next = 0;
    const agent = async () => {
      while (next < CALLS) {
        const seq = next++;
        const controller = Math.floor(random() * CONTROLLERS);
        const url = `https://load.example/${controller}/${seq}`;
        const outcome = await callTool({
          baseUrl: gw.url,
          key: gw.key,
          sessionId: sessions[controller] as string,
          tool: 'browser_navigate',
          args: { url },
          guardMs: 30_000,
        });
        results.push({ controller, url, outcome });
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: AGENTS }, agent));
    const seconds = (performance.now() - started) / 1000;
    const latencies = results.map((r) => r.outcome.ms).sort((a, b) => a - b);
    const errors = results.filter((r) => r.outcome.outcome !== 'ok').length;
    console.log(
      `load: ${CONTROLLERS} controllers, ${AGENTS} agents, ${results.length} calls in ${seconds.toFixed(1)} s ` +
        `(${(results.length / seconds).toFixed(0)} calls/s): p50 ${percentile(latencies, 50).toFixed(1)} ms, ` +
        `p99 ${percentile(latencies, 99).toFixed(1)} ms, max ${(latencies.at(-1) ?? 0).toFixed(1)} ms, ` +
        `error rate ${((100 * errors) / Math.max(1, results.length)).toFixed(2)} %, gateway RSS ${(gw.rssBytes() / 1e6).toFixed(0)} MB`,
    );
  });

  after(async () => {
    await Promise.all(controllers.map((c) => c.stop()));
    await gw.stop();
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
  });

  it('keeps every controller connected', () => {
    assert.equal(controllers.filter((c) => !c.connected).length, 0);
  });

  it('answers every call with its own controller result', () => {
    assert.equal(results.length, CALLS);
    const failed = results.filter((r) => r.outcome.outcome !== 'ok').map((r) => r.outcome.outcome);
    assert.deepEqual(failed.slice(0, 10), []);
    for (const { controller, url, outcome } of results) {
      const echo = echoOf(outcome.result);
      assert.equal(echo.echo_url, url);
      assert.equal(echo.controller_id, `load-${controller}`);
    }
  });
});
