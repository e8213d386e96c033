/**
 * An inbox reader whose connection stays open but hears nothing (Redis behind a stuck proxy) is noticed
 * by the node, which reads its own probes back, and replaced: a call across nodes made while every
 * reader was deaf still reaches its controller and comes back, instead of waiting out its deadline.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { register, tabsAnswer, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { callTool, firstCall } from './broker-suite.js';
import { startCluster, type TestCluster } from './fixtures/cluster-nodes.js';
import { startFreezeProxy, type FreezeProxy } from './fixtures/freeze-proxy.js';
import { startRedis, type TestRedis } from './fixtures/redis-server.js';

const COMMAND = 'browser.controller.command';

describe('a deaf inbox reader', () => {
  let redis: TestRedis;
  let proxy: FreezeProxy;
  let cluster: TestCluster;
  before(async () => {
    redis = await startRedis();
    proxy = await startFreezeProxy(redis.port);
    // A deadline long enough to tell "recovered" from "waited it out".
    cluster = await startCluster(proxy.url, 2, {
      browser: { extension_control: { enabled: true, command_timeout: 20 } },
    });
  });
  after(async () => {
    await cluster?.close();
    await proxy?.close();
    await redis?.stop();
  });

  it('is replaced, and a call across nodes made meanwhile is answered', async () => {
    const [a, b] = cluster.nodes.map((node) => node.gw) as [TestGateway, TestGateway];
    const sessionId = await a.createSession();
    const controller = await TestController.open(b, await register(a, { sessionId }));
    const answer = async () => {
      const command = await controller.next(COMMAND, 15_000).catch(() => undefined);
      if (command) controller.result(command.params.command_id, true, tabsAnswer('answered'));
    };
    assert.equal((await firstCall(a, sessionId, answer)).status, 200);

    assert.equal(proxy.freezeReaders(), 2, 'both nodes’ readers were frozen');
    const [result] = await Promise.all([callTool(a, sessionId), answer()]);
    assert.equal(result.status, 200, JSON.stringify(result.body));
    assert.match(JSON.stringify(result.body), /"title":"answered"/);
  });
});
