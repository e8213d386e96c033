/**
 * A vault secret typed through a cluster reaches the owner-paired controller, whichever node holds its
 * socket, and never passes through Redis: not in any key or value, not in any command Redis received.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { EXTENSION_ORIGIN, REGISTER_PATH } from '../../src/protocol/index.js';
import { Vault } from '../../src/gateway/secrets/index.js';
import { pairedToken } from '../extension/pairing-helpers.js';
import { registrationBody, TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { callTool, firstCall } from './broker-suite.js';
import { CLUSTER_CONFIG, useCluster } from './fixtures/cluster-nodes.js';
import type { TestRedis } from './fixtures/redis-server.js';

const COMMAND = 'browser.controller.command';
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

describe('vault secrets in a cluster', () => {
  const fixture = useCluster(2, {
    ...CLUSTER_CONFIG,
    safety: { approvals: { user_tab: 'none' } },
  });

  it('type into the paired browser on any node and never pass through Redis', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    new Vault(fixture.cluster.home).add(
      { name: 'login', origin: ORIGIN, field: 'password', value: VALUE },
      new Date(),
    );
    const monitor = spawn('redis-cli', ['-p', String(fixture.redis.port), 'MONITOR']);
    let seen = '';
    monitor.stdout.on('data', (chunk: Buffer) => (seen += chunk.toString()));
    await waitFor(() => seen.includes('OK'), { what: 'MONITOR to start' });
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
        controller.result(command.params.command_id, true, {});
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
      monitor.kill();
    }
    assert.ok(seen.includes('EVALSHA'), 'MONITOR saw the cluster’s commands');
    assert.equal(seen.includes(VALUE), false, 'a command sent to Redis carried it');
  });
});
