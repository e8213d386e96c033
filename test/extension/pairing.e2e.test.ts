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
    const pending = await stage.gw.request('GET', '/v1/pairings');
    assert.deepEqual(pending.body.pending, []);
  });

  it('pairs with one click on the approval page', async () => {
    const { approve_url: approveUrl } = await requestPairing(stage);
    const { sessionId: page } = await stage.browser.cdp.openPage(approveUrl);
    await waitFor('the approval page', () =>
      stage.browser.cdp.evaluate<boolean>(page, `Boolean(document.getElementById('approve'))`),
    );
    await stage.browser.cdp.evaluate(page, `document.getElementById('approve').click()`);
    const view = await waitFor('the token', async () => {
      const current = await status(stage.browser);
      return current.paired ? current : null;
    });
    assert.equal(view.pending_pairing, null);
    const grants = await stage.gw.request('GET', '/v1/pairings');
    assert.equal((grants.body.grants as unknown[]).length, 1);
  });
});
