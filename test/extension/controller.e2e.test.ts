/* eslint-disable @typescript-eslint/no-unsafe-member-access */
/**
 * The user's own tab as a session's browser, end to end: a real gateway, the real extension in a
 * self-spawned headless Chromium (no DevTools attach to its worker), the local test site.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callTool, shareNewTab, startStage, status, waitFor, type Stage } from './fixtures/paired-setup.js';

/** The extension's own error code, which the gateway passes on inside controller_rejected. */
const extensionCode = (body: unknown) =>
  /controller rejected command '[0-9a-f]+': ([a-z_]+)/.exec(
    (body as { error?: { message?: string } }).error?.message ?? '',
  )?.[1];

describe('a shared tab', () => {
  let stage: Stage;
  before(async () => {
    stage = await startStage();
  });
  after(async () => {
    await stage?.close();
  });

  it('serves the session: snapshot, type, click with trusted input, all on the user tab', async () => {
    const { sessionId, targetSession } = await shareNewTab(stage, '/form', 'form filler');
    const snap = await callTool(stage, sessionId, 'browser_snapshot');
    assert.equal(snap.status, 200);
    assert.match(snap.body.result.snapshot as string, /textbox "Your name" @e1/);
    assert.equal((await callTool(stage, sessionId, 'browser_type', { ref: '@e1', text: 'Ada' })).status, 200);
    const value = await stage.browser.cdp.evaluate(targetSession, `document.querySelector('input').value`);
    assert.equal(value, 'Ada');
    const check = /button "Check trust" (@e\d+)/.exec(snap.body.result.snapshot as string)?.[1];
    assert.equal((await callTool(stage, sessionId, 'browser_click', { ref: check })).status, 200);
    assert.equal(
      await stage.browser.cdp.evaluate(targetSession, `document.getElementById("out").textContent`),
      'clicked trusted=true',
    );
  });

  it('shows up as a named tab group with the session title', async () => {
    const { tabId } = await shareNewTab(stage, '/page2', 'grouped session');
    const title = await stage.browser.cdp.evaluate<string>(
      stage.browser.popup,
      `chrome.tabs.get(${tabId}).then((t) => chrome.tabGroups.get(t.groupId)).then((g) => g.title)`,
    );
    assert.equal(title, 'tabgate: grouped session');
  });

  it('keeps every tab the user did not share invisible to the agent', async () => {
    const { sessionId } = await shareNewTab(stage, '/form', 'private');
    const otherUrl = stage.site.url('/page2?private=1');
    await stage.browser.cdp.openPage(otherUrl);
    const otherId = await waitFor('the private tab', () => stage.browser.tabIdOf(otherUrl).catch(() => null));
    const tabs = await callTool(stage, sessionId, 'browser_tabs');
    // The agent knows the shared tab as 1, never by chrome's own tab id.
    assert.deepEqual(
      (tabs.body.result.tabs as { id: number; url: string }[]).map((t) => [t.id, t.url]),
      [[1, stage.site.url('/form')]],
    );
    for (const guess of [2, otherId]) {
      const activate = await callTool(stage, sessionId, 'browser_tab_activate', { tab_id: guess });
      assert.equal(activate.body.error.code, 'controller_rejected');
      assert.equal(activate.body.error.controller_code, 'tab_not_found');
    }
  });

  it('adds the tabs a shared page opens to the share', async () => {
    const { sessionId } = await shareNewTab(stage, '/popup', 'popups');
    const snap = await callTool(stage, sessionId, 'browser_snapshot');
    const link = /link "Open page 2 in a new tab" (@e\d+)/.exec(snap.body.result.snapshot as string)?.[1];
    await callTool(stage, sessionId, 'browser_click', { ref: link });
    // The new tab joins as soon as Chrome creates it; its URL follows when its first page commits.
    const tabs = await waitFor('the opened tab to join with its page', async () => {
      const result = await callTool(stage, sessionId, 'browser_tabs');
      const list = result.body.result.tabs as { url: string }[];
      return list.length === 2 && list.some((t) => t.url.endsWith('/page2')) ? list : null;
    });
    assert.equal(tabs.length, 2, JSON.stringify(tabs));
  });

  it('fails a stale ref as stale_ref after navigation, never acting on another element', async () => {
    const { sessionId } = await shareNewTab(stage, '/form', 'stale');
    await callTool(stage, sessionId, 'browser_snapshot');
    await callTool(stage, sessionId, 'browser_navigate', { url: stage.site.url('/page2') });
    const click = await callTool(stage, sessionId, 'browser_click', { ref: '@e1' });
    assert.equal(extensionCode(click.body), 'stale_ref');
  });

  it('goes back even where chrome.tabs.goBack would refuse', async () => {
    const { sessionId } = await shareNewTab(stage, '/form', 'back');
    await callTool(stage, sessionId, 'browser_navigate', { url: stage.site.url('/page2') });
    const back = await callTool(stage, sessionId, 'browser_back');
    assert.equal(back.status, 200);
    assert.ok((back.body.result.url as string).endsWith('/form'));
  });

  it('returns a screenshot small enough for a data URL', async () => {
    const { sessionId } = await shareNewTab(stage, '/form', 'shot');
    const shot = await callTool(stage, sessionId, 'browser_screenshot');
    assert.equal(shot.status, 200);
    assert.equal(shot.body.result.mime_type, 'image/png');
    assert.ok((shot.body.result.data as string).length + 22 <= 1_500_000);
  });

  it('cancels pending work when the user presses Stop in the popup', async () => {
    const { sessionId } = await shareNewTab(stage, '/form', 'stop me');
    const slow = callTool(stage, sessionId, 'browser_navigate', { url: stage.site.url('/slow') });
    await waitFor('the command to run', async () => (await status(stage.browser)).running_commands > 0);
    await stage.browser.cdp.evaluate(stage.browser.popup, `document.getElementById('stop').click()`);
    const result = await slow;
    assert.equal(result.status, 409);
    assert.equal(result.body.error.code, 'controller_cancelled');
    await waitFor('the share to end', async () => (await status(stage.browser)).share === null);
  });
});
