/* eslint-disable @typescript-eslint/no-unsafe-member-access */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { REGISTER_PATH } from '../../src/protocol/index.js';
import { registrationBody, TestController } from '../gateway/fixtures/controller.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { asOperator, collect, pairedToken, startPairing, withToken } from './pairing-helpers.js';

/** The page's anti-CSRF token, read from the page as the page's own script reads it. */
async function pageOf(gw: TestGateway, pairingId: string) {
  const response = await fetch(`${gw.url}/pair/${pairingId}`);
  const html = await response.text();
  const token = /data-token="([^"]+)"/.exec(html)?.[1] ?? '';
  return { response, html, token };
}

function postDecision(
  gw: TestGateway,
  pairingId: string,
  action: string,
  body: unknown,
  headers: Record<string, string>,
) {
  return gw.request('POST', `/pair/${pairingId}/${action}`, {
    body,
    headers: { authorization: '', ...headers },
  });
}

describe('the approval page', () => {
  let gw: TestGateway;
  // A gateway each: the requests a refusal leaves waiting count against the per-extension limit.
  beforeEach(async () => {
    gw = await startTestGateway();
  });
  afterEach(async () => {
    await gw.close();
  });

  it("shows the extension's name, origin and code with anti-framing and no-store headers", async () => {
    const started = await startPairing(gw, 'My <b>Chromium</b>');
    const { response, html } = await pageOf(gw, started.pairing_id);
    assert.equal(response.status, 200);
    assert.ok(html.includes(started.code));
    assert.ok(html.includes('My &#60;b&#62;Chromium&#60;/b&#62;'), 'the name is escaped');
    assert.ok(html.includes('chrome-extension://'));
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.match(response.headers.get('content-security-policy') ?? '', /frame-ancestors 'none'/);
    assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(response.headers.get('cache-control'), 'no-store');
  });

  /** Signs a browser in as the owner through a one-time link, as the sign-in page's script does. */
  async function signIn(): Promise<{ cookie: string; proof: string }> {
    const code = new URLSearchParams(new URL(gw.gateway.signInLink()).hash.slice(1)).get('code') ?? '';
    const result = await gw.request('POST', '/operator/sign-in', {
      body: { code },
      headers: { authorization: '', origin: own(), 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(result.status, 200);
    const setCookie = result.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
    return { cookie: setCookie.split(';')[0] ?? '', proof: result.body.proof as string };
  }
  const own = () => new URL(gw.url).origin;
  const signedIn = (owner: { cookie: string; proof: string }) => ({
    origin: own(),
    'sec-fetch-site': 'same-origin',
    cookie: owner.cookie,
    'x-tabgate-operator': owner.proof,
  });

  it("approves from the owner's signed-in browser, and the extension then collects its token", async () => {
    const owner = await signIn();
    const started = await startPairing(gw);
    const { token } = await pageOf(gw, started.pairing_id);
    const result = await postDecision(
      gw,
      started.pairing_id,
      'approve',
      { page_token: token },
      signedIn(owner),
    );
    assert.equal(result.status, 200);
    assert.equal(result.body.state, 'approved');
    assert.equal((await collect(gw, started.pairing_id)).status, 200);
  });

  it("denies from the owner's signed-in browser", async () => {
    const owner = await signIn();
    const started = await startPairing(gw);
    const { token } = await pageOf(gw, started.pairing_id);
    const result = await postDecision(gw, started.pairing_id, 'deny', { page_token: token }, signedIn(owner));
    assert.equal(result.status, 200);
    assert.equal((await collect(gw, started.pairing_id)).body.error.code, 'pairing_denied');
  });

  it('refuses a post with every header forged but no owner sign-in: no token for a keyless local process', async () => {
    const started = await startPairing(gw);
    const { token } = await pageOf(gw, started.pairing_id);
    const forged = {
      origin: own(),
      'sec-fetch-site': 'same-origin',
      'sec-fetch-mode': 'cors',
      referer: `${gw.url}/pair/${started.pairing_id}`,
    };
    const attempts: Record<string, string>[] = [
      forged,
      { ...forged, cookie: 'tabgate_operator_1=guess', 'x-tabgate-operator': 'guess' },
      { ...forged, authorization: `Bearer ${gw.key}` },
    ];
    for (const headers of attempts) {
      const result = await postDecision(gw, started.pairing_id, 'approve', { page_token: token }, headers);
      assert.equal(result.status, 403, JSON.stringify(headers));
      assert.equal(result.body.error.code, 'operator_required');
    }
    assert.equal((await collect(gw, started.pairing_id)).status, 202, 'still waiting');
  });

  it("needs both halves of the owner's browser session: the cookie alone or the proof alone is refused", async () => {
    const owner = await signIn();
    const started = await startPairing(gw);
    const { token } = await pageOf(gw, started.pairing_id);
    const { cookie: _cookie, ...proofOnly } = signedIn(owner);
    const { 'x-tabgate-operator': _proof, ...cookieOnly } = signedIn(owner);
    for (const headers of [proofOnly, cookieOnly]) {
      const result = await postDecision(gw, started.pairing_id, 'approve', { page_token: token }, headers);
      assert.equal(result.body.error.code, 'operator_required');
    }
    assert.equal((await collect(gw, started.pairing_id)).status, 202);
  });

  it('refuses an approval posted by another site, even signed in and with the right page token', async () => {
    const owner = await signIn();
    const started = await startPairing(gw);
    const { token } = await pageOf(gw, started.pairing_id);
    const web = await postDecision(
      gw,
      started.pairing_id,
      'approve',
      { page_token: token },
      {
        ...signedIn(owner),
        origin: 'https://evil.example',
      },
    );
    assert.equal(web.status, 403);
    assert.equal(web.body.error.code, 'forbidden_origin');
    const crossSite = await postDecision(
      gw,
      started.pairing_id,
      'approve',
      { page_token: token },
      {
        ...signedIn(owner),
        'sec-fetch-site': 'cross-site',
      },
    );
    assert.equal(crossSite.status, 403);
    assert.equal(crossSite.body.error.code, 'operator_required');
    assert.equal((await collect(gw, started.pairing_id)).status, 202, 'still waiting');
  });

  it('refuses an approval without the page token, even from the signed-in owner', async () => {
    const owner = await signIn();
    const started = await startPairing(gw);
    const result = await postDecision(
      gw,
      started.pairing_id,
      'approve',
      { page_token: 'guess' },
      signedIn(owner),
    );
    assert.equal(result.status, 403);
    assert.equal(result.body.error.code, 'pairing_forbidden');
    assert.equal((await collect(gw, started.pairing_id)).status, 202);
  });

  it('makes a sign-in link work once', async () => {
    const code = new URLSearchParams(new URL(gw.gateway.signInLink()).hash.slice(1)).get('code') ?? '';
    const post = () =>
      gw.request('POST', '/operator/sign-in', {
        body: { code },
        headers: { authorization: '', origin: own(), 'sec-fetch-site': 'same-origin' },
      });
    assert.equal((await post()).status, 200);
    const again = await post();
    assert.equal(again.status, 401);
    assert.equal(again.body.error.code, 'sign_in_invalid');
  });

  it('mints sign-in links only for the operator key, never the API key', async () => {
    const byAgent = await gw.request('POST', '/v1/operator/sign-in-links', { body: {} });
    assert.equal(byAgent.status, 403);
    assert.equal(byAgent.body.error.code, 'operator_required');
    const byOwner = await gw.request('POST', '/v1/operator/sign-in-links', {
      body: { next: '/pair/x' },
      headers: { authorization: `Bearer ${gw.operatorKey}` },
    });
    assert.equal(byOwner.status, 201);
    assert.match(
      byOwner.body.url as string,
      /\/operator\/sign-in#code=tgs_[A-Za-z0-9_-]{43}&next=%2Fpair%2Fx$/,
    );
    const offSite = await gw.request('POST', '/v1/operator/sign-in-links', {
      body: { next: '//evil.example/' },
      headers: { authorization: `Bearer ${gw.operatorKey}` },
    });
    assert.equal(offSite.status, 400);
  });

  it('accepts approvals only by POST', async () => {
    const started = await startPairing(gw);
    const result = await fetch(`${gw.url}/pair/${started.pairing_id}/approve`);
    assert.equal(result.status, 405);
  });

  it('says so when the request is unknown', async () => {
    const response = await fetch(`${gw.url}/pair/nope`);
    assert.equal(response.status, 404);
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.match(await response.text(), /Nothing to approve/);
  });
});

describe('revoking a paired extension', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(async () => {
    await gw.close();
  });

  it("closes the token's live controller socket at once and unbinds its lane", async () => {
    const { token, grantId } = await pairedToken(gw);
    const sessionId = await gw.createSession();
    const registered = await gw.request('POST', REGISTER_PATH, {
      body: registrationBody({ sessionId }),
      headers: withToken(token),
    });
    const controller = await TestController.open(gw, registered.body.ticket as string);
    const pendingCall = gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_snapshot`, { body: {} });
    await controller.next('browser.controller.command');
    const revoked = await gw.request('DELETE', `/v1/pairings/${grantId}`, { headers: asOperator(gw) });
    assert.equal(revoked.status, 200);
    const closed = await controller.closed;
    assert.equal(closed.code, 1008);
    const call = await pendingCall;
    assert.equal(call.body.error.code, 'controller_cancelled');
    // Unbound: the session's calls no longer wait for that controller.
    const laneState = gw.gateway.broker.laneState({
      principalId: 'owner',
      profileId: 'default',
      sessionId,
      transportFamily: 'local-api',
    });
    assert.equal(laneState.registered, false);
  });

  it('burns a ticket the token got but had not used yet', async () => {
    const { token, grantId } = await pairedToken(gw);
    const sessionId = await gw.createSession();
    const registered = await gw.request('POST', REGISTER_PATH, {
      body: registrationBody({ sessionId, controllerId: 'ctrl-late' }),
      headers: withToken(token),
    });
    await gw.request('DELETE', `/v1/pairings/${grantId}`, { headers: asOperator(gw) });
    await assert.rejects(TestController.open(gw, registered.body.ticket as string), /401/);
  });
});
