/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The dashboard as an approval channel, driven as the owner would in a real headless Chromium: the
 * agent's consequential click waits, shows up in the Approvals view with the action in words, and
 * happens once the owner presses Approve (or never, on Deny). A hostile page open in the owner's signed-in
 * browser cannot approve it, and the decisions are audited as the dashboard's.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { CHROMIUM, launchPlaywrightChromium } from '../helpers/chromium.js';
import { waitFor } from '../helpers/wait-for.js';
import { startApprovalSites, type ApprovalSites } from './fixtures/approval-site.js';
import { errorCode, toolSession } from './fixtures/tool-session.js';

describe('approvals in the dashboard', () => {
  let gw: TestGateway;
  let sites: ApprovalSites;
  let browser: Browser;
  let page: Page;
  let hostile: http.Server;
  let hostileUrl = '';
  let sid = '';

  const call = (tool: string, args: Record<string, unknown> = {}) =>
    gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args });
  const { ok, refOf } = toolSession(call);
  const pending = () =>
    waitFor(
      async () => {
        const listed = await gw.request('GET', '/v1/approvals?status=pending', {
          headers: { authorization: `Bearer ${gw.operatorKey}` },
        });
        return (listed.body.approvals as { approval_id: string }[])[0];
      },
      { what: 'an approval to wait' },
    );

  before(async () => {
    sites = await startApprovalSites();
    gw = await startTestGateway({
      config: {
        browser: { executable_path: CHROMIUM, chromium_args: [sites.resolverRule], command_timeout: 20 },
        safety: { approval_timeout_s: 30, approvals: { local: ['form_submit'] } },
      },
    });
    sid = await gw.createSession('shop');
    browser = await launchPlaywrightChromium();
    page = await browser.newPage();
    await page.goto(gw.gateway.signInLink('/#/approvals'));
    await page.getByRole('heading', { name: 'Approvals' }).waitFor();
    // A page the owner happens to have open, which tries to approve whatever waits.
    hostile = http.createServer((req, res) => {
      const id = new URL(req.url ?? '/', 'http://x').searchParams.get('id') ?? '';
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<title>Win</title><script>
        fetch(${JSON.stringify(gw.url)} + '/v1/approvals/' + ${JSON.stringify(id)} + '/approve', {method: 'POST',
          mode: 'no-cors', credentials: 'include', headers: {'content-type': 'text/plain'}, body: '{}'})
          .then(() => 'sent', () => 'blocked').then((r) => { document.title = 'done ' + r; });
      </script>`);
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await sites?.close();
    hostile?.close();
  });

  it("shows the waiting action and performs it once on Approve; a hostile page's forgery changes nothing", async () => {
    await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
    sites.requests.length = 0;
    const running = call('browser_click', { ref: await refOf('button "Save"') });
    const waiting = await pending();
    const other = await browser.newPage();
    await other.goto(`${hostileUrl}?id=${encodeURIComponent(waiting.approval_id)}`);
    await other.waitForFunction(() => document.title.startsWith('done'));
    await other.close();
    const still = await gw.request('GET', `/v1/approvals/${waiting.approval_id}`);
    assert.equal(still.body.approval.status, 'pending', 'the forged approval changed nothing');
    const item = page.getByRole('list', { name: 'Waiting approvals' }).getByRole('listitem');
    await item.filter({ hasText: 'button "Save"' }).waitFor();
    assert.match(await item.innerText(), /POST form/);
    assert.equal(sites.hits('/save'), 0, 'nothing was posted while it waited');
    await item.getByRole('button', { name: 'Approve' }).click();
    const result = await running;
    assert.equal(result.status, 200, JSON.stringify(result.body));
    await waitFor(() => sites.hits('/save') === 1, { what: 'the one post' });
    await page.getByRole('cell', { name: 'used' }).first().waitFor();
    const shown = await gw.request('GET', `/v1/approvals/${waiting.approval_id}`);
    assert.equal(shown.body.approval.channel, 'dashboard');
    assert.equal(shown.body.approval.decided_by, 'owner');
  });

  it('lists an approval that arrives below the waiting one, with every button held a moment after', async () => {
    await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
    const first = call('browser_click', { ref: await refOf('button "Save"') });
    const { approval_id: firstId } = await pending();
    const list = page.getByRole('list', { name: 'Waiting approvals' });
    const firstItem = list.getByRole('listitem').filter({ hasText: sid });
    const firstApprove = firstItem.getByRole('button', { name: 'Approve' });
    await firstItem.filter({ hasText: 'button "Save"' }).waitFor();
    await waitFor(async () => (await firstApprove.isEnabled()) || undefined, {
      what: 'the first approval ready',
    });
    const before = await firstApprove.boundingBox();
    // Whether each button was held as it was drawn.
    await page.evaluate(() => {
      const seen: boolean[] = [];
      Object.assign(globalThis, { heldAtDraw: seen });
      new MutationObserver((records) => {
        for (const record of records)
          for (const node of record.addedNodes)
            if (node instanceof HTMLElement)
              for (const button of node.querySelectorAll('button'))
                seen.push(button.getAttribute('aria-disabled') === 'true');
      }).observe(document.querySelector('ul.pending') as Element, { childList: true });
    });
    // Another session of the agent asks as the owner reaches for Approve.
    const sid2 = await gw.createSession('second shop');
    const call2 = (tool: string, args: Record<string, unknown> = {}) =>
      gw.request('POST', `/v1/sessions/${sid2}/tools/${tool}`, { body: args });
    const second = toolSession(call2);
    await second.ok('browser_navigate', { url: sites.shopUrl('/form-post') });
    const secondCall = call2('browser_click', { ref: await second.refOf('button "Save"') });
    await list.getByRole('listitem').nth(1).waitFor();
    assert.deepEqual(await firstApprove.boundingBox(), before, 'the first approval did not move');
    const rows = await list.getByRole('listitem').allInnerTexts();
    assert.match(rows[1] ?? '', new RegExp(sid2), 'the new one is below');
    const held = await page.evaluate(() => (globalThis as unknown as { heldAtDraw: boolean[] }).heldAtDraw);
    assert.ok(held.length >= 2 && held.every(Boolean), `drawn held: ${JSON.stringify(held)}`);
    // A moment later they answer (playwright's click waits for an enabled button, as a person would).
    await list.getByRole('listitem').nth(1).getByRole('button', { name: 'Deny' }).click();
    assert.equal(errorCode(await secondCall), 'approval_denied');
    await firstItem.getByRole('button', { name: 'Deny' }).click();
    assert.equal(errorCode(await first), 'approval_denied');
    assert.equal((await gw.request('GET', `/v1/approvals/${firstId}`)).body.approval.status, 'denied');
  });

  it('performs nothing on Deny', async () => {
    await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
    sites.requests.length = 0;
    const running = call('browser_click', { ref: await refOf('button "Save"') });
    await pending();
    const item = page.getByRole('list', { name: 'Waiting approvals' }).getByRole('listitem');
    await item.getByRole('button', { name: 'Deny' }).click();
    const result = await running;
    assert.equal(errorCode(result), 'approval_denied');
    assert.equal(sites.hits('/save'), 0);
    const audit = await waitFor(
      async () => {
        const rows = (await gw.request('GET', `/v1/audit?session=${sid}&limit=1000`)).body.entries as {
          action: string;
          arguments: { channel?: string };
        }[];
        return rows.find((row) => row.action === 'approval.deny');
      },
      { what: 'the denial in the audit log' },
    );
    assert.equal(audit.arguments.channel, 'dashboard');
  });
});
