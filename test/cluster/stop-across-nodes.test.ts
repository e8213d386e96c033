/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The owner's Stop, or deleting the session, through one node reaches a call running through another
 * node's controller socket: the agent is answered `controller_cancelled` and the controller gets its
 * cancel, both within a second, not at the command's deadline.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { register, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { asOperator } from '../extension/pairing-helpers.js';
import { callTool } from './broker-suite.js';
import { useCluster } from './fixtures/cluster-nodes.js';

const COMMAND = 'browser.controller.command';
const CANCEL = 'browser.controller.cancel';

describe('the owner ending a session through another node', () => {
  // command_timeout 5 s (CLUSTER_CONFIG): a call that waited for its deadline fails the 1 s bounds.
  const fixture = useCluster(2);

  for (const [how, end] of [
    [
      'Stop',
      (gw: TestGateway, sessionId: string) =>
        gw.request('POST', `/v1/sessions/${sessionId}/stop`, { body: {}, headers: asOperator(gw) }),
    ],
    ['DELETE', (gw: TestGateway, sessionId: string) => gw.request('DELETE', `/v1/sessions/${sessionId}`)],
  ] as const) {
    it(`${how} on one node cancels the call in flight through the other node's socket`, async () => {
      const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
      const sessionId = await a.createSession();
      const controller = await TestController.open(b, await register(a, { sessionId }));
      const running = callTool(b, sessionId);
      const command = await controller.next(COMMAND, 3000);
      const ended = await end(a, sessionId);
      assert.ok(ended.status < 300, JSON.stringify(ended.body));
      const cancel = await controller.next(CANCEL, 1000);
      assert.equal(cancel.params.command_id, command.params.command_id);
      const answer = await Promise.race([
        running,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 1000).unref()),
      ]);
      assert.ok(answer, 'the agent was answered within 1 s');
      assert.equal(answer.body.error.code, 'controller_cancelled', JSON.stringify(answer.body));
      await controller.close();
    });
  }
});
