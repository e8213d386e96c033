/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- tests read JSON bodies */
/**
 * The takeover on a cloud provider's browser (docs/safety.md "Takeover"): the session runs on the
 * bundled remote-cdp provider, which hands back the CDP URL of a real headless Chromium the test
 * launched, and tabgate's engine drives it. `browser_request_takeover` pauses that session until the
 * owner marks the step done (the agent then reads where the page is) or declines it; while it waits,
 * the session's other calls are refused and reach no browser. Private addresses are allowed only
 * because the test site is on loopback.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { waitFor } from '../helpers/wait-for.js';
import { startTestSite, type TestSite } from '../testserver/server.js';

describe('takeover on a provider session', () => {
  let site: TestSite;
  let chromium: LocalChromium;
  let gw: TestGateway;
  const asOwner = { authorization: '' };
  before(async () => {
    site = await startTestSite();
    chromium = await launchChromium();
    gw = await startTestGateway({
      config: {
        browser: {
          cloud_provider: 'remote-cdp',
          remote_cdp: { url: chromium.httpEndpoint },
          allow_private_urls: true,
        },
      },
    });
    asOwner.authorization = `Bearer ${gw.operatorKey}`;
  });
  after(async () => {
    await gw?.close();
    chromium?.kill();
    await site?.close();
  });

  const call = (sessionId: string, tool: string, body: unknown = {}) =>
    gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body });
  const pendingTakeover = (sessionId: string) =>
    waitFor(
      async () => {
        const list = await gw.request('GET', '/v1/approvals?status=pending', { headers: asOwner });
        return (
          (list.body.approvals as { kind: string; session_id: string; approval_id: string }[]).find(
            (a) => a.kind === 'takeover' && a.session_id === sessionId,
          ) ?? null
        );
      },
      { what: 'the pending takeover' },
    );
  const decide = (id: string, verb: 'approve' | 'deny') =>
    gw.request('POST', `/v1/approvals/${id}/${verb}`, { body: {}, headers: asOwner });

  it("pauses the provider's session until the owner marks the step done, then reads where the page is", async () => {
    const sessionId = await gw.createSession();
    const opened = await call(sessionId, 'browser_navigate', { url: site.url('/form') });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    const waiting = call(sessionId, 'browser_request_takeover', { reason: 'Log in, please' });
    const takeover = await pendingTakeover(sessionId);

    const refused = await call(sessionId, 'browser_navigate', { url: site.url('/page2') });
    assert.equal(refused.body.error.code, 'takeover_pending');

    assert.equal((await decide(takeover.approval_id, 'approve')).status, 200);
    const answer = await waiting;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.result, {
      done: true,
      takeover_id: takeover.approval_id,
      url: opened.body.result.url,
      title: opened.body.result.title,
    });
    // The refused navigation never reached the provider's browser.
    assert.equal((await call(sessionId, 'browser_snapshot')).body.result.url, site.url('/form'));
  });

  it('answers takeover_declined when the owner declines, and the session runs again', async () => {
    const sessionId = await gw.createSession();
    assert.equal((await call(sessionId, 'browser_navigate', { url: site.url('/page2') })).status, 200);
    const waiting = call(sessionId, 'browser_request_takeover', { reason: 'Solve the CAPTCHA' });
    const takeover = await pendingTakeover(sessionId);
    assert.equal((await decide(takeover.approval_id, 'deny')).status, 200);
    const answer = await waiting;
    assert.equal(answer.status, 409);
    assert.equal(answer.body.error.code, 'takeover_declined');
    assert.equal((await call(sessionId, 'browser_snapshot')).status, 200);
  });
});
