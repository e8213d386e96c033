/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * A node lets go of the controller sockets nobody can route to any more: one whose pairing was revoked
 * on another node, and every one whose lane a restarted Redis forgot. Their calls fail closed meanwhile
 * and never reach another browser; a controller that registers again is served again.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXTENSION_ORIGIN, REGISTER_PATH } from '../../src/protocol/index.js';
import { asOperator, pairedToken } from '../extension/pairing-helpers.js';
import { register, registrationBody, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { callTool, firstCall } from './broker-suite.js';
import { useCluster } from './fixtures/cluster-nodes.js';

const COMMAND = 'browser.controller.command';

/** Resolves with the socket's close code, or fails after `within` ms with what was awaited. */
function closedWithin(controller: TestController, what: string, within = 10_000) {
  let closed: { code: number } | null = null;
  void controller.closed.then((c) => (closed = c));
  return waitFor(() => closed, { what, within });
}

describe('a cluster node letting go of sockets', () => {
  const fixture = useCluster(2);

  it('closes a socket it holds when the pairing is revoked on another node', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    const { token, grantId } = await pairedToken(a);
    const sessionId = await a.createSession();
    const registered = await a.request('POST', REGISTER_PATH, {
      body: registrationBody({ sessionId }),
      headers: { authorization: `Bearer ${token}`, origin: EXTENSION_ORIGIN },
    });
    assert.equal(registered.status, 201, JSON.stringify(registered.body));
    const controller = await TestController.open(b, (registered.body as { ticket: string }).ticket, {
      origin: EXTENSION_ORIGIN,
    });
    const revoked = await a.request('DELETE', `/v1/pairings/${grantId}`, { headers: asOperator(a) });
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    const closed = await closedWithin(controller, 'the revoked socket on the other node to close');
    assert.equal(closed.code, 1008);
  });

  it('after a Redis restart, closes the sockets whose lanes it forgot and serves them once they register again', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    const sessionId = await a.createSession();
    const controller = await TestController.open(b, await register(a, { sessionId }));
    const served = await firstCall(a, sessionId, async () => {
      const command = await controller.next(COMMAND, 2000).catch(() => undefined);
      if (command) controller.result(command.params.command_id, true, {});
    });
    assert.equal(served.status, 200);

    await fixture.redis.restart();
    const closed = await closedWithin(controller, 'the forgotten controller’s socket to close');
    assert.equal(closed.code, 1012);
    // Bound to that browser and unregistered now: refused with a typed error, never routed elsewhere.
    const refused = await callTool(a, sessionId);
    assert.equal(refused.status, 503);
    assert.ok(
      ['controller_unavailable', 'cluster_unavailable'].includes(refused.body?.error?.code as string),
      JSON.stringify(refused.body),
    );

    const again = await waitFor(() => register(b, { sessionId }).catch(() => null), {
      what: 'a registration through the restarted Redis',
    });
    const back = await TestController.open(a, again);
    const reserved = await firstCall(b, sessionId, async () => {
      const command = await back.next(COMMAND, 2000).catch(() => undefined);
      if (command) back.result(command.params.command_id, true, { from: 'back' });
    });
    assert.equal(reserved.status, 200, JSON.stringify(reserved.body));
    assert.match(JSON.stringify(reserved.body), /"back"/);
    await back.close();
  });
});
