/**
 * An inbox reader whose connection stays open but hears nothing (Redis behind a stuck proxy) is noticed
 * by the node, which reads its own probes back, and replaced: a call across nodes made while every
 * reader was deaf still reaches its controller and comes back, instead of waiting out its deadline.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { register, tabsAnswer, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { callTool, firstCall } from './broker-suite.js';
import { useProxiedCluster } from './fixtures/cluster-nodes.js';

const COMMAND = 'browser.controller.command';

describe('a deaf inbox reader', () => {
  // A deadline long enough to tell "recovered" from "waited it out".
  const fixture = useProxiedCluster(2, {
    browser: { extension_control: { enabled: true, command_timeout: 20 } },
  });

  it('is replaced, and a call across nodes made meanwhile is answered', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    const sessionId = await a.createSession();
    const controller = await TestController.open(b, await register(a, { sessionId }));
    const answer = async () => {
      const command = await controller.next(COMMAND, 15_000).catch(() => undefined);
      if (command) controller.result(command.params.command_id, true, tabsAnswer('answered'));
    };
    assert.equal((await firstCall(a, sessionId, answer)).status, 200);

    assert.equal(fixture.proxy.freezeReaders(), 2, 'both nodes’ readers were frozen');
    const [result] = await Promise.all([callTool(a, sessionId), answer()]);
    assert.equal(result.status, 200, JSON.stringify(result.body));
    assert.match(JSON.stringify(result.body), /"title":"answered"/);
  });
});
