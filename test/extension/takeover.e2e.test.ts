/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The takeover on the user's own tab, with the real extension in a real Chromium (docs/safety.md
 * "Takeover"): the agent's browser_request_takeover waits; the worker learns of it from the gateway
 * (protocol v1 carries no such command), the popup shows the agent's reason as plain text with Done and
 * Decline, the agent's other calls are refused meanwhile, and the person's Done in the popup resumes the
 * session, audited as decided through the extension.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENABLED_CONFIG } from '../gateway/fixtures/gateway.js';
import {
  callTool,
  LOOPBACK_TEST_SITES,
  shareNewTab,
  startStage,
  waitFor,
  type Stage,
} from './fixtures/paired-setup.js';
import { openPopup, type PopupPage } from './fixtures/popup-page.js';

/** Markup in the agent's words, which the popup must show as text. */
const REASON = 'Log in to <b id="injected">the shop</b>, please';

describe("takeover on the user's tab (the extension)", () => {
  let stage: Stage;
  let popup: PopupPage | undefined;
  before(async () => {
    stage = await startStage({
      config: { ...ENABLED_CONFIG, safety: { ...LOOPBACK_TEST_SITES, takeover_timeout_s: 120 } },
    });
  });
  after(async () => {
    await popup?.close();
    await stage?.close();
  });

  it('waits for the Done the person presses in the popup; meanwhile no call runs on the tab', async () => {
    const { sessionId, tabId, url } = await shareNewTab(stage, '/form', 'takeover');
    const tools = await stage.gw.request('GET', `/v1/tools?session=${sessionId}`);
    assert.ok(
      (tools.body.tools as { name: string }[]).some((tool) => tool.name === 'browser_request_takeover'),
      'listed beside what the tab was granted',
    );
    const waiting = callTool(stage, sessionId, 'browser_request_takeover', { reason: REASON });
    popup = await openPopup(stage.browser, tabId);
    const done = 'button[data-decision="done"]';
    await waitFor('the popup to offer Done', () => popup!.visible(done));
    const text = await popup.text();
    assert.ok(text.includes(REASON), `the reason, as text: ${text}`);
    assert.equal(await popup.visible('#injected'), false, 'no markup of the agent rendered');
    assert.ok(text.includes('Decline'));

    const refused = await callTool(stage, sessionId, 'browser_snapshot');
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'takeover_pending');

    await popup.click(done);
    const answer = await waiting;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.result.done, true);
    assert.equal(answer.body.result.url, url);
    // Resumed, in the gateway and in the extension (which may still have the pause in mind).
    const after = await callTool(stage, sessionId, 'browser_snapshot');
    assert.equal(after.status, 200, JSON.stringify(after.body));

    const audit = await stage.gw.request('GET', `/v1/audit?session=${sessionId}`);
    const row = (audit.body.entries as { action: string; outcome: string; context: unknown }[]).find(
      (entry) => entry.action === 'browser_request_takeover' && entry.outcome === 'ok',
    );
    assert.deepEqual(
      (row?.context as { takeover?: { outcome: string; channel: string } }).takeover?.channel,
      'extension',
    );
    assert.equal((row?.context as { takeover: { outcome: string } }).takeover.outcome, 'done');
  });
});
