/* eslint-disable @typescript-eslint/no-unsafe-member-access */
/** Pairing in a real browser: the approval page the extension opens, and web pages kept out. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { requestPairing, startStage, status, waitFor, type Stage } from './fixtures/paired-setup.js';

describe('pairing in the browser', () => {
  let stage: Stage;
  before(async () => {
    stage = await startStage({ pair: false });
  });
  after(async () => {
    await stage?.close();
  });
  const owner = () => ({ authorization: `Bearer ${stage.gw.operatorKey}` });

  it('a web page cannot reach the pairing or socket endpoints', async () => {
    const { sessionId } = await stage.browser.cdp.openPage(stage.site.url('/form'));
    const outcome = await stage.browser.cdp.evaluate<{ pair: string; ws: string }>(
      sessionId,
      `(async () => {
        const base = ${JSON.stringify(stage.gw.url)};
        let pair = 'answered';
        try {
          await fetch(base + '/v1/browser-control/pair', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"name":"evil"}' });
        } catch { pair = 'blocked'; }
        const ws = await new Promise((resolve) => {
          const socket = new WebSocket(base.replace('http', 'ws') + '/v1/browser-control/ws', ['hermes-browser-control-v1', 'hermes-browser-control-ticket.x']);
          socket.onopen = () => resolve('open');
          socket.onerror = () => resolve('refused');
        });
        return { pair, ws };
      })()`,
    );
    assert.deepEqual(outcome, { pair: 'blocked', ws: 'refused' });
    const pending = await stage.gw.request('GET', '/v1/pairings', { headers: owner() });
    assert.deepEqual(pending.body.pending, []);
  });

  it("does not pair from the approval page in a browser that is not signed in as the gateway's owner", async () => {
    const { approve_url: approveUrl } = await requestPairing(stage);
    const { sessionId: page } = await stage.browser.cdp.openPage(approveUrl);
    await waitFor('the approval page', () =>
      stage.browser.cdp
        .evaluate<boolean>(
          page,
          `Boolean(document.getElementById('approve')) && document.readyState === 'complete'`,
        )
        .catch(() => false),
    );
    const shown = await stage.browser.cdp.evaluate<{ signIn: boolean; disabled: boolean }>(
      page,
      `({ signIn: !document.getElementById('sign-in').hidden, disabled: document.getElementById('approve').disabled })`,
    );
    assert.deepEqual(shown, { signIn: true, disabled: true });
    // Even a click the page's own script would allow is refused by the gateway.
    const refused = await stage.browser.cdp.evaluate<string>(
      page,
      `fetch(document.getElementById('pairing').dataset.base + '/approve', { method: 'POST',
        headers: { 'content-type': 'application/json' }, credentials: 'same-origin',
        body: JSON.stringify({ page_token: document.getElementById('pairing').dataset.token }) })
        .then((r) => r.json()).then((b) => b.error.code)`,
    );
    assert.equal(refused, 'operator_required');
    assert.ok(!(await status(stage.browser)).paired, 'the extension holds no token');
    const pending = await stage.gw.request('GET', '/v1/pairings', { headers: owner() });
    for (const request of pending.body.pending as { pairing_id: string }[]) {
      const code = /<p id="code">([A-Z0-9-]+)<\/p>/.exec(
        await fetch(`${stage.gw.url}/pair/${request.pairing_id}`).then((r) => r.text()),
      )?.[1];
      await stage.gw.request('POST', '/v1/pairings/deny', { body: { code }, headers: owner() });
    }
  });

  it("pairs with one click on the approval page, once the owner's sign-in link signed the browser in", async () => {
    const { approve_url: approveUrl } = await requestPairing(stage);
    // The link `tabgate serve` prints for this request in the owner's terminal: sign in, then the page.
    const link = stage.gw.gateway.signInLink(new URL(approveUrl).pathname);
    const { sessionId: page } = await stage.browser.cdp.openPage(link);
    await waitFor('the approval page', () =>
      stage.browser.cdp
        .evaluate<boolean>(
          page,
          `Boolean(document.getElementById('approve')) && document.readyState === 'complete'`,
        )
        .catch(() => false),
    );
    await stage.browser.cdp.evaluate(page, `document.getElementById('approve').click()`);
    const view = await waitFor('the token', async () => {
      const current = await status(stage.browser);
      return current.paired ? current : null;
    });
    assert.equal(view.pending_pairing, null);
    const grants = await stage.gw.request('GET', '/v1/pairings', { headers: owner() });
    assert.equal((grants.body.grants as unknown[]).length, 1);
  });
});
