/* eslint-disable @typescript-eslint/no-unsafe-member-access */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runPair } from '../../src/cli/commands/pair.js';
import { parseToken } from '../../src/gateway/pairing/pairing-token.js';
import { REGISTER_PATH } from '../../src/protocol/index.js';
import { registrationBody } from '../gateway/fixtures/controller.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import {
  asOperator,
  collect,
  extensionHeaders,
  pairedToken,
  startPairing,
  withToken,
} from './pairing-helpers.js';

describe('pairing an extension with the gateway', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.close();
  });

  it('gives an allowed extension origin a short code and a loopback approval page', async () => {
    const started = await startPairing(gw);
    assert.match(started.code, /^[A-Z2-9]{4}-[A-Z2-9]{4}$/);
    assert.equal(started.expires_in_seconds, 120);
    assert.equal(started.approve_url, `${gw.url}/pair/${started.pairing_id}`);
  });

  it('refuses to start pairing for a web page origin or no origin at all', async () => {
    const web = await gw.request('POST', '/v1/browser-control/pair', {
      body: { name: 'evil' },
      headers: { origin: 'https://evil.example', authorization: '' },
    });
    assert.equal(web.status, 403);
    assert.equal(web.body.error.code, 'forbidden_origin');
    const none = await gw.request('POST', '/v1/browser-control/pair', {
      body: { name: 'cli' },
      headers: { authorization: '' },
    });
    assert.equal(none.status, 403);
    assert.equal(none.body.error.code, 'forbidden_origin');
  });

  it('refuses a display name longer than 80 characters', async () => {
    const result = await gw.request('POST', '/v1/browser-control/pair', {
      body: { name: 'x'.repeat(81) },
      headers: extensionHeaders,
    });
    assert.equal(result.status, 400);
    assert.equal(result.body.error.code, 'invalid_request');
  });

  it('hands the token out once, after `tabgate pair approve CODE`', async () => {
    const started = await startPairing(gw);
    const waiting = await collect(gw, started.pairing_id);
    assert.equal(waiting.status, 202);
    assert.equal(waiting.body.status, 'pending');
    const lines = await runPair(
      { baseUrl: gw.url, operatorKey: gw.operatorKey },
      'approve',
      started.code.toLowerCase(),
    );
    assert.match(lines[0] ?? '', /^Approved: tabgate test extension/);
    const first = await collect(gw, started.pairing_id);
    assert.equal(first.status, 200);
    assert.match(first.body.token as string, /^tgp_[a-f0-9]{16}_[A-Za-z0-9_-]{43}$/);
    const second = await collect(gw, started.pairing_id);
    assert.equal(second.status, 404);
    assert.equal(second.body.error.code, 'pairing_not_found');
  });

  it('lets only the origin that asked collect the token', async () => {
    const started = await startPairing(gw);
    await gw.request('POST', '/v1/pairings/approve', {
      body: { code: started.code },
      headers: asOperator(gw),
    });
    const other = await collect(
      gw,
      started.pairing_id,
      'chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa',
    );
    assert.equal(other.status, 403);
    const own = await collect(gw, started.pairing_id);
    assert.equal(own.status, 200);
  });

  it('makes a code work once', async () => {
    const started = await startPairing(gw);
    assert.equal(
      (
        await gw.request('POST', '/v1/pairings/approve', {
          body: { code: started.code },
          headers: asOperator(gw),
        })
      ).status,
      200,
    );
    const again = await gw.request('POST', '/v1/pairings/approve', {
      body: { code: started.code },
      headers: asOperator(gw),
    });
    assert.equal(again.status, 404);
    assert.equal(again.body.error.code, 'pairing_code_invalid');
  });

  it('tells the extension when the person denied it', async () => {
    const started = await startPairing(gw);
    await runPair({ baseUrl: gw.url, operatorKey: gw.operatorKey }, 'deny', started.code);
    const result = await collect(gw, started.pairing_id);
    assert.equal(result.status, 403);
    assert.equal(result.body.error.code, 'pairing_denied');
  });

  it('prints the request and the command to approve it in the gateway log', async () => {
    const started = await startPairing(gw, 'Log check');
    const line = gw.logLines.find((l) => l.includes('pairing requested') && l.includes(started.code));
    assert.ok(line, 'a log line names the code');
    assert.ok(line.includes(`"tabgate pair approve ${started.code}"`));
  });

  it('scopes the token to being a controller: list sessions and register, nothing else', async () => {
    const { token } = await pairedToken(gw);
    const sessionId = await gw.createSession('shared');
    const list = await gw.request('GET', '/v1/sessions', { headers: withToken(token) });
    assert.equal(list.status, 200);
    assert.ok((list.body.sessions as { session_id: string }[]).some((s) => s.session_id === sessionId));
    const registered = await gw.request('POST', REGISTER_PATH, {
      body: registrationBody({ sessionId }),
      headers: withToken(token),
    });
    assert.equal(registered.status, 201);
    assert.equal(registered.body.scope.principal_id, 'owner');
    for (const [method, route, body] of [
      ['POST', '/v1/sessions', {}],
      ['POST', `/v1/sessions/${sessionId}/tools/browser_snapshot`, {}],
      ['GET', `/v1/sessions/${sessionId}`, undefined],
      ['DELETE', `/v1/sessions/${sessionId}`, undefined],
    ] as const) {
      const result = await gw.request(method, route, { body, headers: withToken(token) });
      assert.equal(result.status, 403, `${method} ${route}`);
      assert.equal(result.body.error.code, 'token_scope_forbidden', `${method} ${route}`);
    }
    for (const [method, route, body] of [
      ['GET', '/v1/pairings', undefined],
      ['POST', '/v1/pairings/approve', { code: 'ABCD-EFGH' }],
    ] as const) {
      const result = await gw.request(method, route, { body, headers: withToken(token) });
      assert.equal(result.status, 403, `${method} ${route}`);
      assert.equal(result.body.error.code, 'operator_required', `${method} ${route}`);
    }
  });

  it('stores only a hash of the token', async () => {
    const { token } = await pairedToken(gw);
    // The secret itself is base64url and may contain `_`: split the token the way the gateway does.
    const secret = parseToken(token)?.secret ?? '';
    assert.equal(secret.length, 43);
    for (const file of fs.readdirSync(gw.home).filter((f) => f.startsWith('state.db'))) {
      const bytes = fs.readFileSync(path.join(gw.home, file));
      assert.equal(bytes.includes(Buffer.from(secret)), false, `${file} holds the token`);
    }
    assert.equal(
      gw.logLines.some((l) => l.includes(secret)),
      false,
    );
  });

  it('lists paired extensions and refuses the token once revoked', async () => {
    const { token, grantId } = await pairedToken(gw);
    const listed = await runPair({ baseUrl: gw.url, operatorKey: gw.operatorKey }, 'list');
    assert.ok(listed.some((line) => line.startsWith(grantId) && line.includes('active')));
    await runPair({ baseUrl: gw.url, operatorKey: gw.operatorKey }, 'revoke', grantId);
    const after = await gw.request('GET', '/v1/sessions', { headers: withToken(token) });
    assert.equal(after.status, 401);
    assert.equal(after.body.error.code, 'invalid_api_key');
    const relisted = await runPair({ baseUrl: gw.url, operatorKey: gw.operatorKey }, 'list');
    assert.ok(relisted.some((line) => line.startsWith(grantId) && line.includes('revoked')));
  });

  it('refuses to revoke an unknown grant', async () => {
    await assert.rejects(
      runPair({ baseUrl: gw.url, operatorKey: gw.operatorKey }, 'revoke', 'ffffffffffffffff'),
      /pairing_grant_not_found/,
    );
  });
});

describe('wrong approvals', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.close();
  });

  it('are rate-limited, and then even the right code waits', async () => {
    const started = await startPairing(gw);
    for (let i = 0; i < 5; i++) {
      const wrong = await gw.request('POST', '/v1/pairings/approve', {
        body: { code: 'ZZZZ-ZZZZ' },
        headers: asOperator(gw),
      });
      assert.equal(wrong.status, 404);
    }
    const limited = await gw.request('POST', '/v1/pairings/approve', {
      body: { code: started.code },
      headers: asOperator(gw),
    });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, 'rate_limited');
  });
});

describe('a pairing request', () => {
  let gw: TestGateway;
  let now = Date.parse('2026-11-29T12:00:00Z');
  before(async () => {
    gw = await startTestGateway({ clock: { now: () => now } });
  });
  after(async () => {
    await gw.close();
  });

  it('expires after 120 seconds: its code stops working and the extension learns why', async () => {
    const started = await startPairing(gw);
    now += 121_000;
    const approve = await gw.request('POST', '/v1/pairings/approve', {
      body: { code: started.code },
      headers: asOperator(gw),
    });
    assert.equal(approve.status, 404);
    const result = await collect(gw, started.pairing_id);
    assert.equal(result.status, 410);
    assert.equal(result.body.error.code, 'pairing_expired');
  });
});

describe('the extension taking back its own pairing', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.close();
  });

  it('withdraws a request only from the origin that asked; then its code approves nothing', async () => {
    const started = await startPairing(gw);
    const path = `/v1/browser-control/pair/${started.pairing_id}`;
    const foreign = await gw.request('DELETE', path, {
      headers: { ...extensionHeaders, origin: 'chrome-extension://aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' },
    });
    assert.equal(foreign.status, 403);
    assert.equal((await gw.request('DELETE', path, { headers: extensionHeaders })).status, 200);
    const approve = await gw.request('POST', '/v1/pairings/approve', {
      body: { code: started.code },
      headers: asOperator(gw),
    });
    assert.equal(approve.body.error.code, 'pairing_code_invalid');
    assert.equal((await collect(gw, started.pairing_id)).status, 404);
  });

  it('revokes its own grant with its token, and only its own: the API key cannot use this door', async () => {
    const mine = await pairedToken(gw);
    const other = await pairedToken(gw);
    const byAgent = await gw.request('DELETE', '/v1/browser-control/pairing');
    assert.equal(byAgent.body.error.code, 'token_scope_forbidden');
    const unpaired = await gw.request('DELETE', '/v1/browser-control/pairing', {
      headers: withToken(mine.token),
    });
    assert.equal(unpaired.status, 200);
    assert.equal(unpaired.body.grant.grant_id, mine.grantId);
    assert.equal((await gw.request('GET', '/v1/sessions', { headers: withToken(mine.token) })).status, 401);
    assert.equal((await gw.request('GET', '/v1/sessions', { headers: withToken(other.token) })).status, 200);
  });
});
