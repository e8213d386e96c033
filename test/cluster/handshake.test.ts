/**
 * The handshake window: a controller's socket opens only once its lane is in Redis. A call sent the
 * moment the controller sees `open`, through another node, while the attach on the socket's node is
 * slowed, is served by that controller: never the gateway's own browser, never 503.
 *
 * And a node that has not yet found Redis again (after a restart each node reconnects on its own)
 * holds a controller's upgrade for a moment instead of refusing it at once, since the registration may
 * well have gone through a node that already found it: the proxy keeps that node's connection down
 * while the other node registers the controller.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { register, tabsAnswer, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { callTool, firstCall } from './broker-suite.js';
import { useProxiedCluster } from './fixtures/cluster-nodes.js';

const COMMAND = 'browser.controller.command';
/** Only the attach script's keys name the session's set of controllers (`tg:sess:<hash>`). */
const ATTACH_MARKER = 'tg:sess:';

/** The node id a node's lease names, found by the node's pid (the lease value holds it). */
function nodeIdOf(redis: { cli(...args: string[]): string }, pid: number): string {
  for (const key of redis.cli('--scan', '--pattern', 'tg:node:*').split('\n').filter(Boolean)) {
    const lease = JSON.parse(redis.cli('GET', key)) as { pid: number };
    if (lease.pid === pid) return key.slice('tg:node:'.length);
  }
  throw new Error(`no lease for pid ${pid}`);
}

describe('a controller socket opening on a node slow to reach Redis', () => {
  const fixture = useProxiedCluster(2);

  it('is accepted after its node’s Redis connection comes back, and its calls are served', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    const sessionId = await b.createSession();
    const nodeA = nodeIdOf(fixture.redis, fixture.cluster.nodes[0]!.child.pid ?? 0);
    // A's command connection is cut and kept down for 600 ms; B's stays up and registers.
    await fixture.proxy.cutNamed(`tg-cmd-${nodeA}`, 600);
    const controller = await TestController.open(a, await register(b, { sessionId }));
    const served = await firstCall(b, sessionId, async () => {
      const command = await controller.next(COMMAND, 3000);
      controller.result(command.params.command_id, true, tabsAnswer('back'));
    });
    assert.equal(served.status, 200, JSON.stringify(served.body));
    assert.match(JSON.stringify(served.body), /"back"/);
    await controller.close();
  });

  it('serves a call sent the moment it opens through its controller, on its first share and after a reconnect', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    fixture.proxy.delayWrites(ATTACH_MARKER, 300);
    const sessionId = await a.createSession();
    // First share (the session is not bound yet), then a reconnect (bound, its lane offline meanwhile).
    for (const round of ['first', 'again']) {
      const controller = await TestController.open(b, await register(a, { sessionId }));
      const [result, command] = await Promise.all([
        callTool(a, sessionId),
        controller.next(COMMAND, 5000).then((frame) => {
          controller.result(frame.params.command_id, true, tabsAnswer(round));
          return frame;
        }),
      ]);
      assert.equal(result.status, 200, `${round}: ${JSON.stringify(result.body)}`);
      assert.match(JSON.stringify(result.body), new RegExp(`"title":"${round}"`));
      assert.equal(command.params.action, 'browser_tabs');
      await controller.close();
    }
  });
});
