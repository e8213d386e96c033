/**
 * The owner's Stop against a command the socket's node has already cleared (`mark-sent` ran in Redis)
 * but not yet written: once Stop has returned, nothing more reaches the controller. Here the socket's
 * node learns of its `mark-sent` late (its replies are held back in a proxy), which widens the moment
 * between the clearing and the write that a busy node has anyway.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { MARK_SENT } from '../../src/gateway/cluster/lua.js';
import { register, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { asOperator } from '../extension/pairing-helpers.js';
import { waitFor } from '../helpers/wait-for.js';
import { answerFirstCommand, callTool, firstCall } from './broker-suite.js';
import { useProxiedCluster } from './fixtures/cluster-nodes.js';

const MARK_SENT_SHA = createHash('sha1').update(MARK_SENT).digest('hex');
const HELD_MS = 1500;

describe('the owner’s Stop against a command already cleared for the socket', () => {
  const fixture = useProxiedCluster(2);

  it('returns only once that command, and its cancel after it, have reached the controller', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    const sessionId = await a.createSession();
    // The socket on B; the call and the Stop through A.
    const controller = await TestController.open(b, await register(a, { sessionId }));
    // Warm: B has loaded its scripts, so the next mark-sent goes by its SHA-1.
    assert.equal((await firstCall(a, sessionId, answerFirstCommand(controller))).status, 200);
    const frames: string[] = [];
    controller.ws.on('message', (data) => {
      const frame = JSON.parse((data as Buffer).toString('utf8')) as { method: string };
      frames.push(frame.method);
    });
    fixture.proxy.delayReplies(MARK_SENT_SHA, HELD_MS);

    const call = callTool(a, sessionId);
    const cleared = () =>
      fixture.redis
        .cli('KEYS', 'tg:{*}:pend:*')
        .split('\n')
        .filter(Boolean)
        .some((key) => fixture.redis.cli('HVALS', key).startsWith('1|'));
    await waitFor(cleared, { what: 'the command cleared for the socket by B', every: 5 });
    const stopped = await a.request('POST', `/v1/sessions/${sessionId}/stop`, {
      body: {},
      headers: asOperator(a),
    });
    const seenWhenStopReturned = frames.length;
    assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
    const answer = await call;
    assert.equal(answer.status, 409, JSON.stringify(answer.body));
    // Whatever B wrote to the socket before it answers a ping sent now has arrived.
    await waitFor(() => frames.length >= 2, { what: 'the command and its cancel', within: 3 * HELD_MS });
    const pong = once(controller.ws, 'pong');
    controller.ws.ping();
    await pong;
    assert.deepEqual(frames, ['browser.controller.command', 'browser.controller.cancel']);
    assert.deepEqual(
      frames.slice(seenWhenStopReturned),
      [],
      'frames reached the controller after Stop returned',
    );
    await controller.close();
  });
});
