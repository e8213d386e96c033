/**
 * What one call costs Redis, counted with MONITOR: a regression that adds a round trip to a call fails
 * here, not only in the benchmark. A call through the node holding the socket runs its dispatch and,
 * after the reply, records that it ended (without its result, which nobody else waits for); a call
 * through another node, once that node keeps a copy of the lane, adds only the owner's fence before it
 * writes the command (no lane read first). Which of them the agent waits for is asserted by holding one
 * back: the same-node call's result is recorded after its answer, so it is answered while its FINISH
 * is still held.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import * as lua from '../../src/gateway/cluster/lua.js';
import { register, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { callTool } from './broker-suite.js';
import { useCluster, useProxiedCluster } from './fixtures/cluster-nodes.js';
import { monitorRedis } from './fixtures/redis-monitor.js';

const CALLS = 10;
const shaOf = (source: string) => createHash('sha1').update(source).digest('hex');
const scriptOf = new Map(Object.entries(lua).map(([name, source]) => [shaOf(source), name]));

/**
 * Commands by name (scripts by their export name), leaving out what runs on its own clock whatever the
 * calls (lease renewal, the approvals sweep, the sweep asking whether the owner of a slow call is
 * alive) and the inbox readers' blocking reads, which wait rather than ask.
 */
const argsOf = (line: string): string[] => [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1] ?? '');

function tally(lines: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of lines) {
    const [command, first] = argsOf(line);
    const name = command === 'EVALSHA' ? (scriptOf.get(first ?? '') ?? 'EVALSHA ?') : (command ?? '?');
    if (['RENEW', 'ZREMRANGEBYSCORE', 'EXISTS', 'XREAD', 'SCAN'].includes(name)) continue;
    out[name] = (out[name] ?? 0) + 1;
  }
  return out;
}

/** The result payload each FINISH carried (its sixth argument after the key: see lua.FINISH). */
const finishPayloads = (lines: string[]): string[] =>
  lines
    .map(argsOf)
    .filter(([command, sha]) => command === 'EVALSHA' && scriptOf.get(sha ?? '') === 'FINISH')
    .map((args) => args[9] ?? '');

describe('Redis commands per call', () => {
  const fixture = useCluster(2);

  it('same node: the dispatch and the result; across nodes: the dispatch, the owner’s fence and the result', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    const sessionId = await a.createSession();
    const controller = await TestController.open(b, await register(a, { sessionId }));
    controller.serveTabs('');
    assert.equal((await callTool(a, sessionId)).status, 200);
    // A keeps a copy of the lane once it watches it.
    await waitFor(() => fixture.redis.cli('--scan', '--pattern', 'tg:*:watch').trim() || null, {
      what: 'A to keep a copy of the lane',
    });

    const counted = async (gw: TestGateway) => {
      const monitor = await monitorRedis(fixture.redis);
      for (let i = 0; i < CALLS; i++) assert.equal((await callTool(gw, sessionId)).status, 200);
      // The result is recorded after the reply, on the socket's node: waited for, not raced. (The
      // test's own SCANs are left out of the tally.)
      await waitFor(() => fixture.redis.cli('--scan', '--pattern', 'tg:*:pend:*').trim() === '' || null, {
        what: 'the last result to be recorded',
      });
      return await monitor.stop();
    };

    const sameNode = await counted(b);
    assert.deepEqual(tally(sameNode), { DISPATCH: CALLS, FINISH: CALLS });
    // Its caller waits here: the result goes to it at once, and Redis is only told the command ended.
    assert.deepEqual(new Set(finishPayloads(sameNode)), new Set(['null']));
    const crossNode = await counted(a);
    assert.deepEqual(tally(crossNode), { DISPATCH: CALLS, MARK_SENT: CALLS, FINISH: CALLS });
    // Its caller waits on A: the result travels through Redis.
    for (const payload of finishPayloads(crossNode)) assert.match(payload, /tabs/);
    await controller.close();
  });
});

describe('what a call through the socket’s node waits for', () => {
  const fixture = useProxiedCluster(2);
  const pending = () => fixture.redis.cli('--scan', '--pattern', 'tg:*:pend:*').trim();

  it('its answer, not the FINISH that records its result', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    const sessionId = await a.createSession();
    const controller = await TestController.open(b, await register(a, { sessionId }));
    controller.serveTabs('');
    // Loads the scripts, so the next FINISH goes out as EVALSHA, carrying its SHA-1.
    assert.equal((await callTool(b, sessionId)).status, 200);
    await waitFor(() => pending() === '' || null, { what: 'the first result to be recorded' });

    // B's next FINISH, and whatever follows it on B's command connection, stays in the proxy: a call
    // that waited for it would end at its deadline (504), never answered 200.
    const release = fixture.proxy.holdWrites(shaOf(lua.FINISH));
    try {
      assert.equal((await callTool(b, sessionId)).status, 200);
      assert.notEqual(pending(), '', 'answered while its result was not yet recorded in Redis');
    } finally {
      release();
    }
    await waitFor(() => pending() === '' || null, { what: 'the held result to be recorded' });
    await controller.close();
  });
});
