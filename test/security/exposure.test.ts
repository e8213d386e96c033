/**
 * Who can reach the gateway: loopback by default, a loud warning when bound elsewhere, per-peer rate
 * limits on registration and pairing, and the approval page's security headers.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { loadConfig } from '../../src/gateway/config/index.js';
import { createLogger } from '../../src/log/logger.js';
import { TokenBuckets } from '../../src/gateway/security/token-bucket.js';
import { startGateway } from '../../src/gateway/server.js';
import { EXTENSION_ORIGIN, REGISTER_PATH } from '../../src/protocol/index.js';
import { registrationBody } from '../gateway/fixtures/controller.js';
import { ENABLED_CONFIG, makeHome, startTestGateway, writeConfigFile } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { rawRequest } from './fixtures.js';

const STILL_CLOCK = { now: () => Date.UTC(2026, 0, 1) };

describe('bind address', () => {
  it('binds loopback when nothing is configured', () => {
    const home = makeHome();
    try {
      assert.equal(loadConfig({ home, env: {} }).gateway.host, '127.0.0.1');
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });

  it('logs a loud warning when bound beyond loopback, and none on loopback', async () => {
    for (const [host, warned] of [
      ['0.0.0.0', true],
      ['127.0.0.1', false],
    ] as const) {
      const home = makeHome();
      writeConfigFile(home, { gateway: { host, port: 0 } });
      const lines: string[] = [];
      const gateway = await startGateway({
        home,
        env: {},
        backend: new RecordingBackend(),
        log: createLogger({ write: (line) => lines.push(line) }),
      });
      await gateway.close();
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
      const warning = lines.find((line) => line.includes('warn') && line.includes('BEYOND LOOPBACK'));
      assert.equal(Boolean(warning), warned, `bound to ${host}`);
    }
  });
});

describe('rate limits', () => {
  it('answers 429 rate_limited to a credential that floods registration, from any loopback source', async () => {
    // Time stands still, so the buckets never refill however slow this machine runs the loop.
    const gw = await startTestGateway({ backend: new RecordingBackend(), clock: STILL_CLOCK });
    try {
      const sessionId = await gw.createSession();
      const registerFrom = (localAddress: string) =>
        rawRequest(gw.url, {
          method: 'POST',
          path: REGISTER_PATH,
          localAddress,
          headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
          body: JSON.stringify(registrationBody({ sessionId })),
        });
      const statuses: number[] = [];
      for (let i = 0; i < 200 && !statuses.includes(429); i++)
        statuses.push((await registerFrom('127.0.0.1')).status);
      const limited = await registerFrom('127.0.0.1');
      assert.equal(limited.status, 429);
      assert.equal(limited.code, 'rate_limited');
      assert.ok(
        statuses.filter((s) => s === 201).length >= 30,
        'a burst of honest registrations passes first',
      );
      // Another source address is the same loopback peer and the same credential: still limited.
      assert.equal((await registerFrom('127.0.0.2')).status, 429);
    } finally {
      await gw.close();
    }
  });

  it('refills a credential’s registrations at gateway.limits.register_per_second', async () => {
    const clock = { at: Date.UTC(2026, 0, 1), now: () => clock.at };
    const gw = await startTestGateway({
      backend: new RecordingBackend(),
      clock,
      config: {
        ...ENABLED_CONFIG,
        gateway: { host: '127.0.0.1', port: 0, limits: { register_per_second: 0.5 } },
      },
    });
    try {
      const sessionId = await gw.createSession();
      const registerOnce = async () =>
        (await gw.request('POST', REGISTER_PATH, { body: registrationBody({ sessionId }) })).status;
      let spent = 0;
      while ((await registerOnce()) === 201) spent++;
      assert.equal(spent, 60, 'the burst');
      // Two seconds at 0.5 a second earn one registration, not the default's twenty.
      clock.at += 2000;
      assert.equal(await registerOnce(), 201);
      assert.equal(await registerOnce(), 429);
    } finally {
      await gw.close();
    }
  });

  it('answers 429 rate_limited to a peer that floods pairing requests', async () => {
    // Time stands still, so the buckets never refill however slow this machine runs the loop.
    const gw = await startTestGateway({ backend: new RecordingBackend(), clock: STILL_CLOCK });
    try {
      let last = 0;
      for (let i = 0; i < 300 && last !== 429; i++) {
        const response = await rawRequest(gw.url, {
          method: 'POST',
          path: '/v1/browser-control/pair/unknown-id/token',
          headers: { origin: EXTENSION_ORIGIN, 'content-type': 'application/json' },
          body: '{}',
        });
        last = response.status;
        if (last === 429) assert.equal(response.code, 'rate_limited');
      }
      assert.equal(last, 429);
    } finally {
      await gw.close();
    }
  });

  it('refills a spent bucket over time', () => {
    let now = 0;
    const buckets = new TokenBuckets({ capacity: 2, refillPerSecond: 1 }, { now: () => now });
    assert.deepEqual([buckets.take('p'), buckets.take('p'), buckets.take('p')], [true, true, false]);
    now += 1000;
    assert.equal(buckets.take('p'), true);
    assert.equal(buckets.take('p'), false);
  });

  it('keeps at most its peer cap of buckets in memory', () => {
    const buckets = new TokenBuckets({ capacity: 1, refillPerSecond: 1 }, { now: () => 0 }, 100);
    for (let i = 0; i < 1000; i++) buckets.take(`10.0.${i >> 8}.${i & 255}`);
    assert.equal(buckets.size, 100);
  });
});

describe('approval page', () => {
  it('forbids framing, sniffing, caching, referrers and every script but its own', async () => {
    const gw = await startTestGateway({ backend: new RecordingBackend() });
    try {
      const started = await gw.request('POST', '/v1/browser-control/pair', {
        body: { name: 'headers test' },
        headers: { origin: EXTENSION_ORIGIN, authorization: '' },
      });
      const page = await rawRequest(gw.url, {
        path: `/pair/${(started.body as { pairing_id: string }).pairing_id}`,
        headers: { host: new URL(gw.url).host },
      });
      assert.equal(page.status, 200);
      const csp = String(page.headers['content-security-policy']);
      assert.match(csp, /default-src 'none'/);
      assert.match(csp, /frame-ancestors 'none'/);
      assert.match(csp, /script-src 'nonce-[^']+'/);
      assert.equal(page.headers['x-frame-options'], 'DENY');
      assert.equal(page.headers['x-content-type-options'], 'nosniff');
      assert.equal(page.headers['referrer-policy'], 'no-referrer');
      assert.equal(page.headers['cache-control'], 'no-store');
    } finally {
      await gw.close();
    }
  });
});
