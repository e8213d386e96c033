/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * Two nodes, a paired browser and a Redis that forgets. A vault secret typed through the cluster reaches
 * the owner-paired controller whichever node holds its socket, and never passes through Redis (no key or
 * value holds it, no command Redis received carried it). A node lets go of the controller sockets nobody
 * can route to any more: one whose pairing was revoked on another node, and every one whose lane a
 * restarted Redis forgot. Their calls fail closed meanwhile and never reach another browser; a
 * controller that registers again is served again.
 */
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { EXTENSION_ORIGIN, REGISTER_PATH } from '../../src/protocol/index.js';
import { DISPATCH, LOOKUP } from '../../src/gateway/cluster/lua.js';
import { Vault } from '../../src/gateway/secrets/index.js';
import { asOperator, pairedToken } from '../extension/pairing-helpers.js';
import {
  catalogAnswer,
  register,
  registrationBody,
  tabsAnswer,
  TestController,
} from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { callTool, firstCall } from './broker-suite.js';
import { CLUSTER_CONFIG, useCluster } from './fixtures/cluster-nodes.js';
import { monitorRedis } from './fixtures/redis-monitor.js';
import type { TestRedis } from './fixtures/redis-server.js';

const COMMAND = 'browser.controller.command';
const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
const LOOKUP_SHA = sha1(LOOKUP);
const DISPATCH_SHA = sha1(DISPATCH);
const count = (text: string, part: string) => text.split(part).length - 1;

// ASCII, so MONITOR's escaping cannot hide it.
const VALUE = `cluster-pw-${randomBytes(8).toString('hex')}`;
const ORIGIN = 'https://login.example';

/** Every key Redis holds, with its value, as text. */
function everything(redis: TestRedis): string {
  const keys = redis.cli('--scan').split('\n').filter(Boolean);
  return keys
    .map((key) => {
      const type = redis.cli('TYPE', key);
      const dump =
        type === 'string'
          ? redis.cli('GET', key)
          : type === 'hash'
            ? redis.cli('HGETALL', key)
            : type === 'list'
              ? redis.cli('LRANGE', key, '0', '-1')
              : type === 'set'
                ? redis.cli('SMEMBERS', key)
                : type === 'stream'
                  ? redis.cli('XRANGE', key, '-', '+')
                  : redis.cli('DUMP', key);
      return `${key} ${dump}`;
    })
    .join('\n');
}

/** Resolves with the socket's close code, or fails after `within` ms with what was awaited. */
function closedWithin(controller: TestController, what: string, within = 10_000) {
  let closed: { code: number } | null = null;
  void controller.closed.then((c) => (closed = c));
  return waitFor(() => closed, { what, within });
}

describe('two cluster nodes, a paired browser and a Redis that forgets', () => {
  // Approvals off: the fill itself is under test, not its approval.
  const fixture = useCluster(2, { ...CLUSTER_CONFIG, safety: { approvals: { user_tab: 'none' } } });

  it('types a vault secret into the paired browser on any node, the value never passing through Redis', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    new Vault(fixture.cluster.home).add(
      { name: 'login', origin: ORIGIN, field: 'password', value: VALUE },
      new Date(),
    );
    const monitor = await monitorRedis(fixture.redis);
    let seen = '';
    try {
      const { token } = await pairedToken(a);
      const sessionId = await a.createSession();
      const registered = await a.request('POST', REGISTER_PATH, {
        body: registrationBody({ sessionId }),
        headers: { authorization: `Bearer ${token}`, origin: EXTENSION_ORIGIN },
      });
      assert.equal(registered.status, 201, JSON.stringify(registered.body));
      const controller = await TestController.open(b, (registered.body as { ticket: string }).ticket, {
        origin: EXTENSION_ORIGIN,
      });
      const typed: unknown[] = [];
      const answer = async () => {
        const command = await controller.next(COMMAND, 2000).catch(() => undefined);
        if (!command) return;
        typed.push(command.params.secret);
        controller.result(command.params.command_id, true, catalogAnswer(String(command.params.action)));
      };
      await firstCall(a, sessionId, answer, 'browser_tabs');
      // Across nodes (call on A, socket on B), then on the node holding the socket.
      for (const via of [a, b]) {
        const [result] = await Promise.all([
          callTool(via, sessionId, 'browser_type', { ref: '@e1', secret: 'login' }),
          answer(),
        ]);
        assert.equal(result.status, 200, JSON.stringify(result.body));
      }
      assert.equal(typed.length, 3);
      assert.deepEqual(typed.slice(1), [
        { name: 'login', origin: ORIGIN, field: 'password', value: VALUE },
        { name: 'login', origin: ORIGIN, field: 'password', value: VALUE },
      ]);
      assert.equal(everything(fixture.redis).includes(VALUE), false, 'a Redis key or value holds it');
    } finally {
      seen = (await monitor.stop()).join('\n');
    }
    assert.ok(seen.includes('EVALSHA'), 'MONITOR saw the cluster’s commands');
    assert.equal(seen.includes(VALUE), false, 'a command sent to Redis carried it');
  });

  it('reads the lane of a call through the socket’s own node without Redis, and routes to the browser that took the lane since', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    const sessionId = await a.createSession();
    const controller = await TestController.open(b, await register(a, { sessionId }));
    controller.serveTabs('here');
    const monitor = await monitorRedis(fixture.redis);
    let seen = '';
    try {
      for (let i = 0; i < 3; i++) assert.equal((await callTool(b, sessionId)).status, 200);
      assert.equal((await callTool(a, sessionId)).status, 200);
    } finally {
      seen = (await monitor.stop()).join('\n');
    }
    assert.equal(count(seen, DISPATCH_SHA), 4, 'the four dispatches in MONITOR');
    // Only the call through A, which holds no socket of the session, read the lane from Redis.
    assert.equal(count(seen, LOOKUP_SHA), 1);
    // Another browser takes the lane through A: B's next call goes to it, never to the socket B holds.
    const other = await TestController.open(
      a,
      await register(a, { sessionId, browserProfileId: 'profile-2', controllerId: 'ctrl-2' }),
    );
    const [moved] = await Promise.all([
      callTool(b, sessionId),
      other.next(COMMAND, 3000).then((frame) => {
        other.result(frame.params.command_id, true, tabsAnswer('there'));
      }),
    ]);
    assert.equal(moved.status, 200, JSON.stringify(moved.body));
    assert.match(JSON.stringify(moved.body), /"there"/);
    await other.close();
    await controller.close();
  });

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
      if (command) controller.result(command.params.command_id, true, tabsAnswer(''));
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

    // As the extension does: register and connect again until both go through (each node finds the
    // restarted Redis on its own, so an upgrade can meet a node still answering 503 a moment longer).
    const back = await waitFor(
      async () => {
        const again = await register(b, { sessionId }).catch(() => null);
        return again ? await TestController.open(a, again).catch(() => null) : null;
      },
      { what: 'a registration and a socket through the restarted Redis', every: 200 },
    );
    const reserved = await firstCall(b, sessionId, async () => {
      const command = await back.next(COMMAND, 2000).catch(() => undefined);
      if (command) back.result(command.params.command_id, true, tabsAnswer('back'));
    });
    assert.equal(reserved.status, 200, JSON.stringify(reserved.body));
    assert.match(JSON.stringify(reserved.body), /"back"/);
    await back.close();
  });
});
