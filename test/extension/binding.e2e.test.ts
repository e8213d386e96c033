/* eslint-disable @typescript-eslint/no-unsafe-member-access */
/**
 * A session the user's browser served stays bound to it, with the real extension in a real Chromium
 * and a real gateway whose default backend is a real local Chromium: after the user clicks Stop in the
 * popup, after `tabgate pair revoke`, and after a gateway restart, the agent's calls fail closed. The
 * test site records every request it gets (path and User-Agent), so a call that any browser — the
 * user's tab or the gateway's own Chromium — carried out would show up there.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { makeHome, startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import type { ExtensionBrowser } from './fixtures/extension-browser.js';
import {
  callTool,
  revokePairings,
  shareNewTab,
  startStage,
  status,
  waitFor,
  type Stage,
} from './fixtures/paired-setup.js';

/** A person's click on an element of a page: the mouse moves there, presses and releases. */
async function click(browser: ExtensionBrowser, page: string, selector: string): Promise<void> {
  const point = await waitFor(`${selector} to show`, () =>
    browser.cdp.evaluate<{ x: number; y: number } | null>(
      page,
      `(() => { const el = document.querySelector(${JSON.stringify(selector)});
        if (!el || el.closest('[hidden]')) return null;
        el.scrollIntoView({ block: 'center' }); const r = el.getBoundingClientRect();
        return r.width > 0 ? { x: r.x + r.width / 2, y: r.y + r.height / 2 } : null; })()`,
    ),
  );
  await browser.cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', ...point }, page);
  for (const type of ['mousePressed', 'mouseReleased'])
    await browser.cdp.send(
      'Input.dispatchMouseEvent',
      { type, ...point, button: 'left', clickCount: 1 },
      page,
    );
}

/** Calls that must not run anywhere: each navigates to a fresh marker path the site must never see. */
async function assertFailsClosed(stage: Stage, sessionId: string, code: string, marker: string) {
  const seenBefore = stage.site.requests.length;
  const navigate = await callTool(stage, sessionId, 'browser_navigate', {
    url: stage.site.url(`/form?${marker}`),
  });
  assert.equal(navigate.body.error?.code, code, JSON.stringify(navigate.body));
  for (const tool of ['browser_snapshot', 'browser_tabs']) {
    assert.equal((await callTool(stage, sessionId, tool)).body.error?.code, code, tool);
  }
  // A fallback would have fetched the page by now: the call only answered after it had been refused.
  const leaked = stage.site.requests.slice(seenBefore).filter((r) => r.path.includes(marker));
  assert.deepEqual(leaked, [], 'no browser fetched the page');
}

describe('a session bound to the user’s browser stays bound', () => {
  let stage: Stage;
  before(async () => {
    stage = await startStage();
  });
  after(async () => {
    await stage?.close();
  });

  it('fails closed after the user clicks Stop in the popup, and runs again once they share again', async () => {
    const { sessionId, tabId } = await shareNewTab(stage, '/form', 'stopped by the user');
    const served = await callTool(stage, sessionId, 'browser_navigate', {
      url: stage.site.url('/form?served'),
    });
    assert.equal(served.status, 200);
    const shareAgent = stage.site.requests.find((r) => r.path === '/form?served')?.userAgent;
    assert.ok(shareAgent, 'the shared tab fetched the page');

    await stage.browser.cdp.send('Page.reload', {}, stage.browser.popup);
    await click(stage.browser, stage.browser.popup, '#stop');
    await waitFor('the share to end', async () => (await status(stage.browser)).share === null);

    await assertFailsClosed(stage, sessionId, 'session_stopped', 'after-stop');
    const record = await stage.gw.request('GET', `/v1/sessions/${sessionId}`);
    assert.equal(record.body.binding.state, 'stopped');

    await stage.browser.ask({ type: 'share', session_id: sessionId, title: 'shared again', tab_id: tabId });
    await waitFor(
      'the controller to connect',
      async () => (await status(stage.browser)).connection.state === 'connected',
    );
    const again = await callTool(stage, sessionId, 'browser_navigate', {
      url: stage.site.url('/form?again'),
    });
    assert.equal(again.status, 200);
    assert.equal(stage.site.requests.find((r) => r.path === '/form?again')?.userAgent, shareAgent);
  });

  it('fails closed after the owner revokes the pairing', async () => {
    const { sessionId } = await shareNewTab(stage, '/form', 'revoked');
    assert.equal((await callTool(stage, sessionId, 'browser_snapshot')).status, 200);
    await revokePairings(stage.gw);
    await waitFor(
      'the extension to stop',
      async () => (await status(stage.browser)).connection.state === 'stopped',
    );
    await assertFailsClosed(stage, sessionId, 'session_stopped', 'after-revoke');
  });
});

describe('a bound session after a gateway restart', () => {
  const home = makeHome();
  let stage: Stage;
  let restarted: TestGateway | undefined;
  before(async () => {
    stage = await startStage({ home });
  });
  after(async () => {
    // The stage closes the gateway it started; the restarted one is this suite's own.
    await stage?.close();
    await restarted?.close();
    fs.rmSync(home, { recursive: true, force: true });
  });

  it('fails closed on the restarted gateway instead of opening the page in its own Chromium', async () => {
    const { sessionId } = await shareNewTab(stage, '/form', 'restarted');
    assert.equal((await callTool(stage, sessionId, 'browser_snapshot')).status, 200);
    await stage.gw.close();
    // The same home (sessions, grants and bindings) on another port, which the extension does not know:
    // nothing can serve the session, and its own local Chromium must not either.
    restarted = await startTestGateway({ home });
    const onRestarted = { ...stage, gw: restarted };
    await assertFailsClosed(onRestarted, sessionId, 'controller_unavailable', 'after-restart');
    const unbound = await restarted.createSession('never bound');
    const local = await callTool(onRestarted, unbound, 'browser_navigate', {
      url: stage.site.url('/form?local'),
    });
    assert.equal(local.status, 200, 'the local Chromium serves sessions no browser ever held');
  });
});
