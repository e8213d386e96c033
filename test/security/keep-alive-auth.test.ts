/**
 * A keep-alive connection that proved the API key skips the hash on its later requests, but every
 * request is still checked: a different header on the same connection is refused, and a pairing token
 * (revocable) is never remembered. Real HTTP over one reused loopback socket.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { sameSecret } from '../../src/gateway/auth/api-key.js';
import { ProvenConnections } from '../../src/gateway/auth/proven-connections.js';
import type { Caller } from '../../src/gateway/service.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';

interface Answer {
  status: number;
  code: string | undefined;
  reusedSocket: boolean;
}

describe('API key on a keep-alive connection', () => {
  let gw: TestGateway;
  // One socket for every request of the test.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  before(async () => {
    gw = await startTestGateway({ backend: new RecordingBackend() });
  });
  after(async () => {
    agent.destroy();
    await gw.close();
  });

  function listSessions(authorization: string | undefined): Promise<Answer> {
    const url = new URL('/v1/sessions', gw.url);
    return new Promise((resolve, reject) => {
      const req = http.request(url, {
        agent,
        headers: authorization === undefined ? {} : { authorization },
      });
      req.on('response', (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        res.on('end', () => {
          const body = JSON.parse(text) as { error?: { code?: string } };
          resolve({ status: res.statusCode ?? 0, code: body.error?.code, reusedSocket: req.reusedSocket });
        });
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('checks every request: after the right key, a wrong one on the same connection is refused', async () => {
    const right = `Bearer ${gw.key}`;
    const sameLength = `Bearer ${gw.key.slice(0, -1)}${gw.key.endsWith('A') ? 'B' : 'A'}`;
    const answers = [
      await listSessions(right),
      await listSessions(sameLength),
      await listSessions(right.slice(0, -1)),
      await listSessions(`${right}x`),
      await listSessions(undefined),
      await listSessions(right),
    ];
    assert.deepEqual(
      answers.map((a) => [a.status, a.code ?? 'ok']),
      [
        [200, 'ok'],
        [401, 'invalid_api_key'],
        [401, 'invalid_api_key'],
        [401, 'invalid_api_key'],
        [401, 'invalid_api_key'],
        [200, 'ok'],
      ],
    );
    assert.ok(
      answers.slice(1).every((a) => a.reusedSocket),
      'all on one keep-alive connection',
    );
  });
});

describe('proven connections', () => {
  const caller = (credential: Caller['credential']): Caller => ({
    principalId: 'owner',
    profileId: 'default',
    credential,
    transportFamily: 'local-api',
  });

  it('never remembers a pairing token, which can be revoked at any moment', () => {
    const proven = new ProvenConnections();
    const connection = {};
    proven.remember(connection, 'Bearer tgp_token', caller('pairing_token'));
    assert.equal(proven.recall(connection, 'Bearer tgp_token'), null);
    proven.remember(connection, 'Bearer key', caller('api_key'));
    assert.equal(proven.recall(connection, 'Bearer key')?.credential, 'api_key');
    assert.equal(proven.recall({}, 'Bearer key'), null, 'another connection proves nothing');
  });

  it('compares secrets whole: equal only when every character and the length match', () => {
    assert.equal(sameSecret('Bearer abc', 'Bearer abc'), true);
    for (const presented of ['Bearer abd', 'Xearer abc', 'Bearer ab', 'Bearer abcd', '', 'bearer abc'])
      assert.equal(sameSecret(presented, 'Bearer abc'), false, presented);
  });
});
