/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The dashboard as its owner meets it: a real headless Chromium (playwright-core, test/helpers/chromium.ts)
 * signs in through the one-time link, and watches an agent drive the gateway's real local Chromium over
 * HTTP: the session appears, its navigate and click reach the timeline and the screenshot changes, and
 * Stop ends a running call. The agent's API key alone cannot stop, approve or revoke, and a hostile page
 * the agent browses cannot reach those actions. Each view is saved as a PNG: to docs/dashboard/ (the
 * pictures docs/dashboard.md shows) only with TABGATE_DOC_SHOTS=1, else to a temp folder, so an ordinary
 * run leaves the working tree as it found it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { LONG_TITLE } from '../testserver/pages.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { CHROMIUM, launchPlaywrightChromium } from '../helpers/chromium.js';
import { waitFor } from '../helpers/wait-for.js';
import { tempDir } from '../helpers/temp-dir.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const shotDir = process.env.TABGATE_DOC_SHOTS
  ? path.join(root, 'docs', 'dashboard')
  : tempDir('dashboard-shots');
const shot = (page: Page, name: string) => page.screenshot({ path: path.join(shotDir, `${name}.png`) });

describe('the dashboard in a real browser', () => {
  let gw: TestGateway;
  let site: TestSite;
  let browser: Browser;
  let page: Page;
  let hostile: http.Server;
  let hostileUrl = '';

  before(async () => {
    site = await startTestSite();
    gw = await startTestGateway({
      config: { browser: { executable_path: CHROMIUM }, audit: { all_backends: true } },
    });
    browser = await launchPlaywrightChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    // A page the agent is sent to, which tries the owner's actions against the gateway it cannot see.
    hostile = http.createServer((req, res) => {
      const target = new URL(req.url ?? '/', 'http://x').searchParams.get('session') ?? '';
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<title>Win a prize</title><script>
        const g=${JSON.stringify(gw.url)};const s=${JSON.stringify(target)};
        const tries=[['POST',g+'/v1/sessions/'+s+'/stop'],['POST',g+'/v1/sessions/'+s+'/resume'],
          ['POST',g+'/v1/dashboard/pairings/x/approve'],['DELETE',g+'/v1/dashboard/browsers/x']];
        Promise.all(tries.map(([m,u])=>fetch(u,{method:m,mode:'no-cors',credentials:'include',
          headers:{'content-type':'text/plain'},body:'{}'}).then(()=>'sent',()=>'blocked')))
          .then((r)=>{document.title='done '+r.join(',');});
      </script>`);
    });
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve));
    hostileUrl = `http://127.0.0.1:${(hostile.address() as AddressInfo).port}/`;
  });
  after(async () => {
    await browser?.close();
    await gw?.close();
    await site?.close();
    hostile?.close();
    if (!process.env.TABGATE_DOC_SHOTS) fs.rmSync(shotDir, { recursive: true, force: true });
  });

  const call = (sessionId: string, tool: string, body: unknown = {}) =>
    gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body });

  it('serves the page with a strict CSP, no framing, and no inline script', async () => {
    const response = await fetch(`${gw.url}/`);
    const html = await response.text();
    const csp = response.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]/, 'no inline script');
    assert.doesNotMatch(html, /https?:\/\//, 'nothing from elsewhere');
  });

  it('shows how to sign in to a browser that is not signed in, and nothing else', async () => {
    await page.goto(`${gw.url}/`);
    await page.getByText('not signed in as the owner').waitFor();
    await shot(page, 'signed-out');
  });

  it('signs in through the one-time link and shows a session an agent creates', async () => {
    await page.goto(gw.gateway.signInLink('/'));
    await page.getByRole('navigation', { name: 'Views' }).waitFor();
    assert.equal(new URL(page.url()).hash, '', 'the code left the address bar');
    const sessionId = await gw.createSession('Find a flight');
    await page.getByRole('link', { name: 'Find a flight' }).waitFor();
    assert.ok(sessionId);
  });

  it("shows the agent's navigate and click in the timeline, and a new screenshot after each", async () => {
    const sessionId = await gw.createSession('Fill the form');
    await page.goto(`${gw.url}/#/sessions/${sessionId}`);
    await page.getByRole('heading', { name: 'Fill the form' }).waitFor();
    const navigated = await call(sessionId, 'browser_navigate', { url: site.url('/form') });
    assert.equal(navigated.status, 200);
    const timeline = page.locator('#timeline');
    await timeline.getByText('browser_navigate').waitFor();
    await page.locator('#screenshot').waitFor({ timeout: 5000 });
    const first = await page.locator('#screenshot').getAttribute('src');
    const ref = /Go to page 2[^@]*(@e\d+)/.exec(navigated.body.result.snapshot.snapshot as string)?.[1];
    assert.ok(ref, 'the link has a ref');
    assert.equal((await call(sessionId, 'browser_click', { ref })).status, 200);
    await timeline.getByText('browser_click').waitFor();
    await page.waitForFunction(
      (before) => document.querySelector('#screenshot')?.getAttribute('src') !== before,
      first,
      { timeout: 5000 },
    );
    await shot(page, 'session');
  });

  it("stops a running call from the Stop button; the agent's next call is refused until Resume", async () => {
    const sessionId = await gw.createSession('Slow page');
    assert.equal((await call(sessionId, 'browser_navigate', { url: site.url('/form') })).status, 200);
    await page.goto(`${gw.url}/#/sessions/${sessionId}`);
    await page.getByRole('heading', { name: 'Slow page' }).waitFor();
    const running = call(sessionId, 'browser_navigate', { url: site.url('/slow') });
    await page.locator('#session-status', { hasText: 'acting' }).waitFor();
    await page.getByRole('button', { name: 'Stop' }).click();
    const answer = await running;
    assert.equal(answer.status, 409);
    assert.equal(answer.body.error.code, 'session_stopped_by_owner');
    await page.locator('#session-status', { hasText: 'stopped' }).waitFor();
    assert.equal((await call(sessionId, 'browser_snapshot')).body.error.code, 'session_stopped_by_owner');
    await page.getByRole('button', { name: 'Resume' }).click();
    await page.locator('#session-status', { hasText: 'idle' }).waitFor();
    // The engine cannot cancel the page load it started, so the tab is still loading /slow: a new
    // navigation replaces it.
    assert.equal((await call(sessionId, 'browser_navigate', { url: site.url('/form') })).status, 200);
  });

  it("refuses the agent's API key for stop, approve and revoke with 403 operator_required", async () => {
    const sessionId = await gw.createSession();
    for (const [method, route] of [
      ['POST', `/v1/sessions/${sessionId}/stop`],
      ['POST', '/v1/dashboard/pairings/x/approve'],
      ['DELETE', '/v1/dashboard/browsers/x'],
      ['GET', '/v1/dashboard/sessions'],
    ] as const) {
      const result = await gw.request(method, route, method === 'GET' ? {} : { body: {} });
      assert.equal(result.status, 403, `${method} ${route}`);
      assert.equal(result.body.error.code, 'operator_required');
    }
    assert.equal((await call(sessionId, 'browser_tabs')).status, 200);
  });

  it("keeps a hostile page the agent browses away from the dashboard's actions", async () => {
    const sessionId = await gw.createSession('Hostile');
    const seen = gw.logLines.length;
    const visit = await call(sessionId, 'browser_navigate', { url: `${hostileUrl}?session=${sessionId}` });
    assert.equal(visit.status, 200);
    // The page reports once every attempt settled; the agent reads it from the tab's title.
    const title = await waitFor(
      async () => {
        const shown = ((await call(sessionId, 'browser_snapshot')).body.result?.title as string) ?? '';
        return shown.startsWith('done') ? shown : undefined;
      },
      { what: 'the hostile page to report every attempt settled', every: 100 },
    );
    assert.match(title, /^done/);
    const ownerRoutes = () =>
      gw.logLines
        .slice(seen)
        .filter(
          (line) =>
            line.includes(`/v1/sessions/${sessionId}/stop`) ||
            line.includes(`/v1/sessions/${sessionId}/resume`) ||
            /\/v1\/dashboard\/(pairings|browsers)/.test(line),
        );
    // A request's log line is written when its response has closed, a moment after the page has it.
    const refused = await waitFor(() => (ownerRoutes().length >= 3 ? ownerRoutes() : undefined), {
      what: "the owner routes' log lines",
      within: 2_000,
      every: 50,
    }).catch(() => ownerRoutes());
    // The DELETE never leaves the browser (no-cors allows GET, HEAD and POST only); the posts get 403.
    assert.equal(refused.length, 3, refused.join('\n'));
    for (const line of refused) assert.match(line, /status=403/);
    const session = await gw.request('GET', `/v1/sessions/${sessionId}`);
    assert.equal(session.body.stopped_at, null);
  });

  it('keeps Stop where it was when the page line beside it grows to several lines', async () => {
    const sessionId = await gw.createSession('Long title');
    assert.equal((await call(sessionId, 'browser_navigate', { url: site.url('/form') })).status, 200);
    await page.goto(`${gw.url}/#/sessions/${sessionId}`);
    await page.locator('.page', { hasText: 'Test form' }).waitFor();
    const stop = page.getByRole('button', { name: 'Stop' });
    const before = await stop.boundingBox();
    assert.equal((await call(sessionId, 'browser_navigate', { url: site.url('/long-title') })).status, 200);
    const line = page.locator('.page', { hasText: LONG_TITLE.slice(0, 60) });
    await line.waitFor();
    const height = (await line.boundingBox())?.height ?? 0;
    assert.ok(height > 40, `the title wraps (${height} px high)`);
    assert.deepEqual(await stop.boundingBox(), before);
  });

  it('works with the keyboard alone: a view, a session, and its Stop button', async () => {
    await page.goto(`${gw.url}/#/sessions`);
    await page.locator('table.list tbody tr').first().waitFor();
    const focusOn = async (matches: () => Promise<boolean>, what: string) => {
      for (let i = 0; i < 60; i++) {
        await page.keyboard.press('Tab');
        if (await matches()) return;
      }
      assert.fail(`Tab never reached ${what}`);
    };
    const focused = () => page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    await focusOn(async () => (await focused()) === 'Browsers', 'the Browsers view');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Paired extensions' }).waitFor();
    await page.goto(`${gw.url}/#/sessions`);
    await page.locator('table.list tbody tr').first().waitFor();
    await focusOn(
      () => page.evaluate(() => document.activeElement?.closest('table.list tbody') !== null),
      'a session',
    );
    await page.keyboard.press('Enter');
    await focusOn(() => page.evaluate(() => document.activeElement?.id === 'stop'), 'the Stop button');
  });

  it('reads at 200 % zoom without scrolling sideways, on every view', async () => {
    // 200 % zoom of a 1280 px window lays the page out in 640 CSS px.
    await page.setViewportSize({ width: 640, height: 400 });
    try {
      for (const view of ['sessions', 'approvals', 'activity', 'browsers', 'settings']) {
        await page.goto(`${gw.url}/#/${view}`);
        await page.locator('main :is(h2, caption)').first().waitFor();
        const overflow = await page.evaluate(
          () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
        );
        assert.ok(overflow <= 0, `${view} is ${overflow} px wider than the window`);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 800 });
    }
  });

  it('shows a burst of calls in the activity in the order the log has them, newest first', async () => {
    const sessionId = await gw.createSession('Burst');
    assert.equal((await call(sessionId, 'browser_tabs')).status, 200);
    await page.goto(`${gw.url}/#/activity`);
    await page.locator('#activity tbody tr').first().waitFor();
    // Concurrent, so their rows reach the page together; the two tools tell the rows apart.
    const tools = ['browser_tabs', 'browser_snapshot', 'browser_tabs', 'browser_snapshot', 'browser_tabs'];
    await Promise.all(tools.map((tool) => call(sessionId, tool)));
    const logged = (
      await gw.request('GET', `/v1/dashboard/activity?session=${sessionId}`, {
        headers: { authorization: `Bearer ${gw.operatorKey}` },
      })
    ).body as { entries: { action: string; outcome: string }[] };
    const expected = logged.entries.map((e) => `${e.action} ${e.outcome}`);
    assert.equal(expected.length, tools.length + 1);
    const shown = await waitFor(
      async () => {
        const rows = await page
          .locator('#activity tbody tr')
          .evaluateAll(
            (trs, id) =>
              trs
                .filter((tr) => tr.children[1]?.textContent === id)
                .map((tr) => `${tr.children[3]?.textContent} ${tr.children[5]?.textContent}`),
            sessionId,
          );
        return rows.length >= expected.length ? rows : undefined;
      },
      { what: "the burst's rows in the activity", within: 5_000, every: 50 },
    );
    assert.deepEqual(shown, expected);
  });

  it('shows in the activity the calls made while the tab showed another view, and the next ones live', async () => {
    const sessionId = await gw.createSession('Elsewhere');
    const rowsOf = () =>
      page
        .locator('#activity tbody tr')
        .evaluateAll((trs, id) => trs.filter((tr) => tr.children[1]?.textContent === id).length, sessionId);
    await page.goto(`${gw.url}/#/activity`);
    await page.locator('#activity tbody tr').first().waitFor();
    // The sessions list's stream carries no audit rows: these two reach the page only by its coming back.
    await page.goto(`${gw.url}/#/sessions`);
    await page.getByRole('link', { name: 'Elsewhere' }).waitFor();
    for (let i = 0; i < 2; i++) assert.equal((await call(sessionId, 'browser_tabs')).status, 200);
    await page.goto(`${gw.url}/#/activity`);
    const wait = { within: 5_000, every: 50 };
    await waitFor(async () => ((await rowsOf()) === 2 ? true : undefined), {
      what: 'the calls made meanwhile in the activity',
      ...wait,
    });
    assert.equal((await call(sessionId, 'browser_tabs')).status, 200);
    await waitFor(async () => ((await rowsOf()) === 3 ? true : undefined), {
      what: 'the next call live',
      ...wait,
    });
  });

  it('shows the activity, browsers and settings views', async () => {
    await page.goto(`${gw.url}/#/activity`);
    await page.locator('#activity tbody tr').first().waitFor();
    await shot(page, 'activity');
    await page.goto(`${gw.url}/#/browsers`);
    await page.getByRole('heading', { name: 'Paired extensions' }).waitFor();
    await shot(page, 'browsers');
    await page.goto(`${gw.url}/#/settings`);
    const config = await page.locator('#config').textContent();
    assert.ok(config && !config.includes(gw.key), 'the API key is not shown');
    await shot(page, 'settings');
    await page.goto(`${gw.url}/#/sessions`);
    await page.locator('table.list tbody tr').first().waitFor();
    await shot(page, 'sessions');
  });
});
