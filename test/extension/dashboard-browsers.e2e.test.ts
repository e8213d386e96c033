/**
 * The dashboard's Browsers view with the real extension: the owner approves the extension's pairing
 * request from the dashboard (signed in through the one-time link, in its own headless Chromium), sees
 * the extension connect and the session it serves, then revokes it there and sees it disconnect, while
 * the extension loses its token and the session's next call fails closed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { launchPlaywrightChromium } from '../helpers/chromium.js';
import {
  callTool,
  requestPairing,
  shareNewTab,
  startStage,
  status,
  waitFor,
  type Stage,
} from './fixtures/paired-setup.js';

describe("the dashboard's Browsers view with the real extension", () => {
  let stage: Stage;
  let owner: Browser;
  let page: Page;
  before(async () => {
    stage = await startStage({ pair: false });
    owner = await launchPlaywrightChromium();
    page = await owner.newPage();
    await page.goto(stage.gw.gateway.signInLink('/'));
    await page.getByRole('navigation', { name: 'Views' }).waitFor();
  });
  after(async () => {
    await owner?.close();
    await stage?.close();
  });

  const row = () => page.locator('table.list tbody tr').first();

  it('approves the pairing request from the dashboard, then shows the extension connected and its session', async () => {
    const { code } = await requestPairing(stage);
    await page.goto(`${stage.gw.url}/#/browsers`);
    const request = page.locator('ul.pending li', { hasText: code });
    await request.getByRole('button', { name: 'Approve' }).click();
    await waitFor('the extension to hold its token', async () => (await status(stage.browser)).paired);

    const { sessionId } = await shareNewTab(stage);
    await page.reload();
    await row().getByText('connected', { exact: true }).waitFor();
    assert.equal(await row().getByRole('link', { name: sessionId }).count(), 1, 'the session it serves');
    assert.equal((await callTool(stage, sessionId, 'browser_snapshot')).status, 200);
  });

  it('revokes it from the dashboard: the extension disconnects and the session fails closed', async () => {
    const sessionId = await row().getByRole('link').first().textContent();
    page.once('dialog', (dialog) => void dialog.accept());
    await row().getByRole('button', { name: 'Revoke' }).click();
    await row().getByText('revoked', { exact: true }).waitFor();
    await waitFor('the extension to lose its token', async () => !(await status(stage.browser)).paired);
    const refused = await callTool(stage, sessionId ?? '', 'browser_snapshot');
    assert.notEqual(refused.status, 200, 'the bound session fails closed, never moves to another browser');
    const error = (refused.body as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'session_stopped');
    assert.match(error.message, /pairing of the browser that served this session was revoked/);
  });
});
