/**
 * The handshake window: a controller's socket opens only once its lane is in Redis. A call sent the
 * moment the controller sees `open`, through another node, while the attach on the socket's node is
 * slowed, is served by that controller: never the gateway's own browser, never 503.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { register, tabsAnswer, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { callTool } from './broker-suite.js';
import { useProxiedCluster } from './fixtures/cluster-nodes.js';

const COMMAND = 'browser.controller.command';
/** Only the attach script's keys name the session's set of controllers (`tg:sess:<hash>`). */
const ATTACH_MARKER = 'tg:sess:';

describe('a controller socket opening on a node whose attach is slow', () => {
  const fixture = useProxiedCluster(2);

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
