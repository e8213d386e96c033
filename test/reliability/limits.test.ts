/* eslint-disable @typescript-eslint/no-unsafe-member-access */
/**
 * Rate limits that a local process cannot sidestep or turn against the owner: every loopback source is
 * one peer; registration counts per credential; a pairing request's own polls have their own budget;
 * approvals need the owner's credential before anything counts, and wrong ones count per credential
 * and per pairing request. Time stands still in these tests, so buckets never refill mid-loop.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { runPair } from '../../src/cli/commands/pair.js';
import { DEFAULT_RATE_LIMITS } from '../../src/gateway/security/rate-limits.js';
import { MAX_WRONG_APPROVALS_PER_CREDENTIAL } from '../../src/gateway/pairing/approval-limiter.js';
import { EXTENSION_ORIGIN, REGISTER_PATH } from '../../src/protocol/index.js';
import { registrationBody } from '../gateway/fixtures/controller.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { asOperator, collect, pairedToken, startPairing } from '../extension/pairing-helpers.js';
import { rawRequest } from '../security/fixtures.js';
import { sourceAddress } from './fixtures/raw-sockets.js';

const STILL_CLOCK = { now: () => Date.UTC(2026, 0, 1) };

describe('rate limits a local process cannot sidestep', () => {
  let gw: TestGateway;
  // A gateway each: a spent bucket must not leak into the next test.
  beforeEach(async () => {
    gw = await startTestGateway({ backend: new RecordingBackend(), clock: STILL_CLOCK });
  });
  afterEach(async () => {
    await gw.close();
  });

  it('counts the sources 127.0.0.2 … 127.0.0.101 as one peer for pairing, 127.0.0.1 included', async () => {
    const ownRequest = await startPairing(gw);
    const poll = (i: number, id = `unknown-${i}`) =>
      rawRequest(gw.url, {
        method: 'POST',
        path: `/v1/browser-control/pair/${id}/token`,
        localAddress: sourceAddress(i),
        headers: { origin: EXTENSION_ORIGIN, 'content-type': 'application/json' },
        body: '{}',
      });
    let accepted = 0;
    for (let i = 0; i < 3 * DEFAULT_RATE_LIMITS.pairing.capacity; i++) {
      const response = await poll(i);
      if (response.status === 429) break;
      accepted++;
    }
    assert.equal(accepted, DEFAULT_RATE_LIMITS.pairing.capacity - 1, 'one bucket for every source');
    const fromFirst = await rawRequest(gw.url, {
      method: 'POST',
      path: '/v1/browser-control/pair/unknown/token',
      headers: { origin: EXTENSION_ORIGIN, 'content-type': 'application/json' },
      body: '{}',
    });
    assert.equal(fromFirst.status, 429);
    assert.equal(fromFirst.code, 'rate_limited');
    // The extension that asked still polls its own request: the flood spent the peer's budget, not its.
    assert.equal((await collect(gw, ownRequest.pairing_id)).status, 202);
  });

  it('counts registrations per credential, whatever the source address', async () => {
    const paired = await pairedToken(gw);
    const sessionId = await gw.createSession();
    const register = (i: number, bearer: string) =>
      rawRequest(gw.url, {
        method: 'POST',
        path: REGISTER_PATH,
        localAddress: sourceAddress(i),
        headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' },
        body: JSON.stringify(registrationBody({ sessionId })),
      });
    let accepted = 0;
    for (let i = 0; i < 3 * DEFAULT_RATE_LIMITS.register.capacity; i++) {
      const response = await register(i, gw.key);
      if (response.status === 429) break;
      accepted++;
    }
    assert.equal(accepted, DEFAULT_RATE_LIMITS.register.capacity);
    assert.equal((await register(0, paired.token)).status, 201, 'another credential has its own budget');
  });
});

describe('approvals', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ backend: new RecordingBackend(), clock: STILL_CLOCK });
  });
  after(async () => {
    await gw.close();
  });

  const own = () => new URL(gw.url).origin;

  it('refuses forged approvals before they count, so `tabgate pair approve` still works', async () => {
    const started = await startPairing(gw);
    const forged: { path: string; headers: Record<string, string> }[] = [
      { path: '/v1/pairings/approve', headers: { authorization: `Bearer ${gw.key}` } },
      { path: '/v1/pairings/approve', headers: { authorization: '' } },
      { path: '/v1/pairings/approve', headers: { authorization: 'Bearer not-the-operator-key' } },
      {
        path: `/pair/${started.pairing_id}/approve`,
        headers: { authorization: '', origin: own(), 'sec-fetch-site': 'same-origin', cookie: 'x=y' },
      },
    ];
    for (let i = 0; i < 3 * MAX_WRONG_APPROVALS_PER_CREDENTIAL; i++) {
      const attempt = forged[i % forged.length] ?? forged[0];
      const response = await gw.request('POST', attempt?.path ?? '', {
        body: { code: 'ZZZZ-ZZZZ', page_token: 'forged' },
        headers: attempt?.headers,
      });
      assert.equal(response.status, 403, attempt?.path);
      assert.equal(response.body.error.code, 'operator_required');
    }
    const lines = await runPair({ baseUrl: gw.url, operatorKey: gw.operatorKey }, 'approve', started.code);
    assert.ok(
      lines.some((line) => /approved/i.test(line)),
      lines.join('\n'),
    );
    assert.equal((await collect(gw, started.pairing_id)).status, 200);
  });

  it("counts an owner's wrong approvals per credential and drops a request after too many wrong posts", async () => {
    const code = new URLSearchParams(new URL(gw.gateway.signInLink()).hash.slice(1)).get('code') ?? '';
    const signIn = await gw.request('POST', '/operator/sign-in', {
      body: { code },
      headers: { authorization: '', origin: own(), 'sec-fetch-site': 'same-origin' },
    });
    const browser = {
      authorization: '',
      origin: own(),
      'sec-fetch-site': 'same-origin',
      cookie: (signIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
      'x-tabgate-operator': String(signIn.body.proof),
    };
    const stale = await startPairing(gw, 'stale page');
    const waiting = await startPairing(gw, 'waiting');
    for (let i = 0; i < MAX_WRONG_APPROVALS_PER_CREDENTIAL; i++) {
      const wrong = await gw.request('POST', `/pair/${stale.pairing_id}/approve`, {
        body: { page_token: 'stale' },
        headers: browser,
      });
      assert.equal(wrong.status, 403);
      assert.equal(wrong.body.error.code, 'pairing_forbidden');
    }
    const limited = await gw.request('POST', `/pair/${waiting.pairing_id}/approve`, {
      body: { page_token: 'stale' },
      headers: browser,
    });
    assert.equal(limited.status, 429, 'this browser session spent its budget');
    const dropped = await collect(gw, stale.pairing_id);
    assert.equal(
      dropped.body.error.code,
      'pairing_denied',
      'the request that saw the wrong posts is dropped',
    );
    const approved = await gw.request('POST', '/v1/pairings/approve', {
      body: { code: waiting.code },
      headers: asOperator(gw),
    });
    assert.equal(approved.status, 200, "the operator key's budget is its own");
  });
});
