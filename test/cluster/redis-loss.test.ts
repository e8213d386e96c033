/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * Without its Redis a cluster node fails closed: it will not start, and once started it answers the calls
 * that need Redis with 503 cluster_unavailable instead of guessing, and never names the Redis password.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { REGISTER_PATH } from '../../src/protocol/index.js';
import { runTabgate } from '../helpers/tabgate-cli.js';
import { registrationBody, TestController } from '../gateway/fixtures/controller.js';
import { waitFor } from '../helpers/wait-for.js';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { answerFirstCommand, callTool, firstCall } from './broker-suite.js';
import { freePort } from '../helpers/free-port.js';
import { useNodeOnItsOwnRedis } from './fixtures/cluster-nodes.js';

describe('a cluster node without its Redis', () => {
  it('will not start, and says which Redis it could not reach without showing its password', async () => {
    const port = await freePort();
    const home = makeHome();
    const result = await runTabgate(home, [
      'serve',
      '--port',
      '0',
      '--cluster',
      `redis://tabgate:s3cr3t-pw@127.0.0.1:${port}`,
    ]).finally(() => fs.rmSync(home, { recursive: true, force: true }));
    assert.notEqual(result.code, 0);
    assert.match(result.stderr, new RegExp(`redis://tabgate:\\*\\*\\*@127\\.0\\.0\\.1:${port}`));
    assert.doesNotMatch(result.stderr + result.stdout, /s3cr3t-pw/);
  });

  describe('once running', () => {
    const node = useNodeOnItsOwnRedis();

    it('answers calls and registrations with 503 cluster_unavailable, sending nothing anywhere', async () => {
      const { redis, gw } = node;
      const sessionId = await gw.createSession();
      assert.equal(
        (await gw.request('POST', REGISTER_PATH, { body: registrationBody({ sessionId }) })).status,
        201,
      );
      await redis.stop();
      const call = await callTool(gw, sessionId);
      assert.equal(call.status, 503);
      assert.equal(call.body.error.code, 'cluster_unavailable');
      const registration = await gw.request('POST', REGISTER_PATH, { body: registrationBody({ sessionId }) });
      assert.equal(registration.status, 503);
      assert.equal(registration.body.error.code, 'cluster_unavailable');
      assert.doesNotMatch(gw.logLines.join('\n'), /"ticket":/);
    });
  });

  describe('for longer than its lease', () => {
    const node = useNodeOnItsOwnRedis();

    it('closes its controller sockets so their extensions reconnect to a node that can route', async () => {
      const { redis, gw } = node;
      const sessionId = await gw.createSession();
      const controller = await TestController.connect(gw, { sessionId });
      const served = await firstCall(gw, sessionId, answerFirstCommand(controller));
      assert.equal(served.status, 200);
      let closed: { code: number } | null = null;
      void controller.closed.then((c) => (closed = c));
      await redis.stop();
      const { code } = await waitFor(() => closed, { what: 'the socket to be closed', within: 15_000 });
      assert.equal(code, 1012);
    });
  });
});
