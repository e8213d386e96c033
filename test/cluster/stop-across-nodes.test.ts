/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The owner's Stop, or deleting the session, through one node reaches a call running through another
 * node: the agent is answered within a second, not at the command's deadline, with the code one
 * gateway gives for the same act (Stop: `session_stopped_by_owner`; DELETE of a session a user's
 * browser serves: `controller_cancelled`), whichever node it called, and the controller gets its
 * cancel.
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

const ENDINGS = [
  {
    how: 'Stop',
    code: 'session_stopped_by_owner',
    end: (gw: TestGateway, sessionId: string) =>
      gw.request('POST', `/v1/sessions/${sessionId}/stop`, { body: {}, headers: asOperator(gw) }),
  },
  {
    how: 'DELETE',
    code: 'controller_cancelled',
    end: (gw: TestGateway, sessionId: string) => gw.request('DELETE', `/v1/sessions/${sessionId}`),
  },
] as const;

describe('the owner ending a session through another node', () => {
  // command_timeout 5 s (CLUSTER_CONFIG): a call that waited for its deadline fails the 1 s bounds.
  const fixture = useCluster(2);

  for (const { how, code, end } of ENDINGS) {
    for (const socketOn of ['the caller’s node', 'the ending node'] as const) {
      it(`${how} on one node ends the call waiting on the other as ${code} (socket on ${socketOn})`, async () => {
        const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
        const sessionId = await a.createSession();
        const socketNode = socketOn === 'the ending node' ? a : b;
        const controller = await TestController.open(socketNode, await register(a, { sessionId }));
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
        assert.equal(answer.body.error.code, code, JSON.stringify(answer.body));
        await controller.close();
      });
    }
  }
});
