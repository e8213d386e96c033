/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The dashboard as a takeover channel, driven as the owner would in a real headless Chromium: the
 * agent's browser_request_takeover on the local browser shows in the session's view (the reason as
 * text, never markup, beside the page's screenshot) and in the Approvals view; Done resumes the agent,
 * Decline answers it `takeover_declined`, each audited as the dashboard's decision.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { startTestSite, type TestSite } from '../testserver/server.js';

const CHROMIUM = process.env.CHROME_PATH ?? '/usr/bin/chromium';
/** The agent's words, with markup that must show as text. */
const REASON = 'Solve the <img src=x onerror="document.title=`pwned`"> CAPTCHA';

describe('takeover in the dashboard', () => {
  let gw: TestGateway;
  let site: TestSite;
  let browser: Browser;
  let page: Page;
  let sid = '';

  const call = (tool: string, args: Record<string, unknown> = {}) =>
    gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args });
  const takeoverRow = () =>
    waitFor(
      async () => {
        const rows = (await gw.request('GET', `/v1/audit?session=${sid}&limit=1000`)).body.entries as {
          action: string;
          outcome: string;
          context: { takeover?: { outcome: string; channel: string } } | null;
        }[];
        return rows.filter((row) => row.action === 'browser_request_takeover').at(-1);
      },
      { what: 'the takeover in the audit log' },
    );

  before(async () => {
    site = await startTestSite();
    gw = await startTestGateway({ config: { browser: { executable_path: CHROMIUM } } });
    sid = await gw.createSession('login');
    assert.equal((await call('browser_navigate', { url: site.url('/form') })).status, 200);
    browser = await chromium.launch({ executablePath: CHROMIUM });
    page = await browser.newPage();
    await page.goto(gw.gateway.signInLink(`/#/sessions/${encodeURIComponent(sid)}`));
    await page.locator('#session-title').waitFor();
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await site?.close();
  });

  it("shows the agent's reason as text in the session view, and resumes the agent on Done", async () => {
    const running = call('browser_request_takeover', { reason: REASON });
    const panel = page.locator('#takeover');
    await panel.waitFor();
    assert.equal(await page.locator('#takeover-reason').innerText(), REASON);
    assert.equal(await panel.locator('img').count(), 0, 'no markup of the agent rendered');
    assert.notEqual(await page.title(), 'pwned');
    await page.locator('#screenshot').waitFor();
    await panel.getByRole('button', { name: 'Done' }).click();
    const result = await running;
    assert.equal(result.status, 200, JSON.stringify(result.body));
    assert.equal(result.body.result.url, site.url('/form'));
    await page.locator('#takeover').waitFor({ state: 'detached' });
    const row = await takeoverRow();
    assert.equal(row.outcome, 'ok');
    assert.deepEqual(
      { outcome: row.context?.takeover?.outcome, channel: row.context?.takeover?.channel },
      { outcome: 'done', channel: 'dashboard' },
    );
  });

  it('lists it among the approvals, and answers takeover_declined on Decline', async () => {
    await page.goto(gw.gateway.signInLink('/#/approvals'));
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    const running = call('browser_request_takeover', { reason: 'Log in to the shop' });
    const item = page
      .getByRole('list', { name: 'Waiting approvals' })
      .getByRole('listitem')
      .filter({ hasText: 'Take over: Log in to the shop' });
    await item.waitFor();
    await item.getByRole('button', { name: 'Decline' }).click();
    const result = await running;
    assert.equal(result.body.error.code, 'takeover_declined');
    await page.getByRole('cell', { name: 'declined' }).first().waitFor();
    const row = await takeoverRow();
    assert.equal(row.outcome, 'takeover_declined');
    assert.equal(row.context?.takeover?.channel, 'dashboard');
  });
});
