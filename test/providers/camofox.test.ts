/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return -- tests read JSON bodies */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { getTool } from '../../src/protocol/index.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { startFakeCamofox, type FakeCamofox } from './fixtures/fake-camofox.js';

const KEY = 'camofox-key-5566778899';

/**
 * A real Chromium behind a local Camofox server, the test site, and a gateway whose new sessions go to
 * that Camofox (with `browser.camofox` settings when given), for the enclosing describe.
 */
function useCamofoxStage(o: {
  apiKey?: string;
  camofox?: Record<string, unknown>;
  fake?: Pick<Parameters<typeof startFakeCamofox>[0], 'vncPort' | 'vncStatus'>;
}) {
  const stage = {} as { chromium: LocalChromium; camofox: FakeCamofox; site: TestSite; gw: TestGateway };
  before(async () => {
    stage.chromium = await launchChromium();
    stage.camofox = await startFakeCamofox({
      cdpUrl: stage.chromium.wsEndpoint,
      ...(o.apiKey ? { apiKey: o.apiKey } : {}),
      ...o.fake,
    });
    stage.site = await startTestSite();
    stage.gw = await startTestGateway({
      config: {
        browser: {
          cloud_provider: 'camofox',
          allow_private_urls: true,
          ...(o.camofox ? { camofox: o.camofox } : {}),
        },
      },
      env: { CAMOFOX_URL: stage.camofox.url, ...(o.apiKey ? { CAMOFOX_API_KEY: o.apiKey } : {}) },
    });
  });
  after(async () => {
    await stage.gw?.close();
    await stage.camofox?.close();
    await stage.site?.close();
    stage.chromium?.kill();
  });
  return stage;
}

describe('Camofox as the browser behind sessions (a fake Camofox server driving a real Chromium)', () => {
  const s = useCamofoxStage({ apiKey: KEY });

  const call = (sid: string, tool: string, body: Record<string, unknown> = {}) =>
    s.gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body });
  const refAfter = (text: string, label: string) => new RegExp(`${label} (@e\\d+)`).exec(text)?.[1] ?? '';

  it("navigates and reads the page in tabgate's snapshot format, refs included", async () => {
    const sid = await s.gw.createSession();
    const nav = await call(sid, 'browser_navigate', { url: s.site.url('/form') });
    assert.equal(nav.status, 200, JSON.stringify(nav.body));
    assert.equal(nav.body.result.title, 'Test form');
    assert.match(nav.body.result.snapshot.snapshot, /button "Send" @e\d+/);
    assert.ok(s.camofox.requests.includes('POST /tabs'));
    const session = await s.gw.request('GET', `/v1/sessions/${sid}`);
    assert.equal(session.body.browser.backend, 'camofox');
  });

  it('clicks a link, goes back and types into a field by ref, through Camofox calls', async () => {
    const sid = await s.gw.createSession();
    const nav = await call(sid, 'browser_navigate', { url: s.site.url('/form') });
    const text: string = nav.body.result.snapshot.snapshot;
    const clicked = await call(sid, 'browser_click', { ref: refAfter(text, 'link "Go to page 2"') });
    assert.equal(clicked.status, 200, JSON.stringify(clicked.body));
    const page2 = await call(sid, 'browser_snapshot');
    assert.equal(page2.body.result.title, 'Page two');
    const back = await call(sid, 'browser_back');
    assert.equal(back.body.result.title, 'Test form');
    const form: string = (await call(sid, 'browser_snapshot')).body.result.snapshot;
    const typed = await call(sid, 'browser_type', {
      ref: refAfter(form, 'textbox "Your name"'),
      text: 'Ada',
      submit: true,
    });
    assert.equal(typed.status, 200, JSON.stringify(typed.body));
    const thanks = await call(sid, 'browser_snapshot', { full: true });
    assert.match(thanks.body.result.snapshot, /Hello Ada/);
  });

  it('refuses a click it cannot make as asked (another button, twice, with keys) and clicks nothing', async () => {
    const sid = await s.gw.createSession();
    const nav = await call(sid, 'browser_navigate', { url: s.site.url('/form') });
    const ref = refAfter(nav.body.result.snapshot.snapshot, 'link "Go to page 2"');
    const clicksBefore = s.camofox.requests.filter((r) => r.endsWith('/click')).length;
    for (const args of [
      { button: 'right' },
      { button: 'middle' },
      { double: true },
      { modifiers: ['Shift'] },
    ]) {
      const refused = await call(sid, 'browser_click', { ref, ...args });
      assert.equal(refused.body.error?.code, 'unsupported_on_backend', JSON.stringify(args));
    }
    assert.equal(s.camofox.requests.filter((r) => r.endsWith('/click')).length, clicksBefore);
    assert.equal((await call(sid, 'browser_snapshot')).body.result.title, 'Test form');
  });

  it("answers every tool it runs in the shape of the catalog's result schema", async () => {
    const sid = await s.gw.createSession();
    const results: [string, unknown][] = [];
    const run = async (tool: string, body: Record<string, unknown> = {}) => {
      const reply = await call(sid, tool, body);
      assert.equal(reply.status, 200, `${tool}: ${JSON.stringify(reply.body)}`);
      results.push([tool, reply.body.result]);
      return reply.body.result;
    };
    const nav = await run('browser_navigate', { url: s.site.url('/form') });
    const form: string = nav.snapshot.snapshot;
    await run('browser_snapshot');
    await run('browser_type', { ref: refAfter(form, 'textbox "Your name"'), text: 'Ada' });
    await run('browser_press', { key: 'Tab' });
    const scrolled = await run('browser_scroll', { direction: 'down' });
    assert.deepEqual([scrolled.scroll_x, scrolled.scroll_y], [null, null], 'Camofox reports no position');
    await run('browser_click', { ref: refAfter(form, 'link "Go to page 2"') });
    await run('browser_back');
    for (const [tool, result] of results) {
      const checked = getTool(tool)?.result.safeParse(result);
      assert.ok(
        checked?.success,
        `${tool}: ${JSON.stringify(result)} ${JSON.stringify(checked?.error?.issues)}`,
      );
    }
  });

  it('answers a ref from the previous page with stale_ref', async () => {
    const sid = await s.gw.createSession();
    const nav = await call(sid, 'browser_navigate', { url: s.site.url('/form') });
    const send = refAfter(nav.body.result.snapshot.snapshot, 'button "Send"');
    await call(sid, 'browser_navigate', { url: s.site.url('/page2') });
    const stale = await call(sid, 'browser_click', { ref: send });
    assert.equal(stale.body.error?.code, 'stale_ref');
  });

  it('answers a snapshot before any page was opened with no_page, and navigating opens one', async () => {
    const sid = await s.gw.createSession();
    const early = await call(sid, 'browser_snapshot');
    assert.equal(early.status, 409);
    assert.equal(early.body.error?.code, 'no_page', JSON.stringify(early.body));
    assert.match(early.body.error.message, /navigate first/);
    assert.equal((await call(sid, 'browser_navigate', { url: s.site.url('/form') })).status, 200);
    assert.equal((await call(sid, 'browser_snapshot')).body.result.title, 'Test form');
  });

  it('refuses what Camofox has no call for with unsupported_on_backend', async () => {
    const sid = await s.gw.createSession();
    await call(sid, 'browser_navigate', { url: s.site.url('/form') });
    const shot = await call(sid, 'browser_screenshot');
    assert.equal(shot.status, 501);
    assert.equal(shot.body.error.code, 'unsupported_on_backend');
  });

  it('deletes the Camofox user when the session closes', async () => {
    const sid = await s.gw.createSession();
    await call(sid, 'browser_navigate', { url: 'about:blank' });
    assert.equal((await s.gw.request('DELETE', `/v1/sessions/${sid}`)).status, 200);
    assert.ok(s.camofox.requests.some((r) => /^DELETE \/sessions\/tabgate_[0-9a-f]{10}$/.test(r)));
    // Its tab was grouped under a key of its own session.
    const body = s.camofox.tabBodies.at(-1);
    assert.equal(body?.listItemId, `session_${sid.slice(0, 16)}`);
  });
});

describe("Camofox's refusals, as the codes every other backend gives for the same case", () => {
  const s = useCamofoxStage({});
  let disabledPage: http.Server | undefined;
  let disabledUrl = '';
  before(async () => {
    disabledPage = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<title>Disabled</title><button disabled>Locked</button><button>Open</button>');
    });
    await new Promise<void>((resolve) => disabledPage?.listen(0, '127.0.0.1', resolve));
    disabledUrl = `http://127.0.0.1:${(disabledPage.address() as AddressInfo).port}/`;
  });
  after(() => disabledPage?.close());

  const call = (sid: string, tool: string, body: Record<string, unknown> = {}) =>
    s.gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body });
  const refAfter = (text: string, label: string) => new RegExp(`${label} (@e\\d+)`).exec(text)?.[1] ?? '';
  async function open(url: string, label: string) {
    const sid = await s.gw.createSession();
    const nav = await call(sid, 'browser_navigate', { url });
    assert.equal(nav.status, 200, JSON.stringify(nav.body));
    const ref = refAfter(nav.body.result.snapshot.snapshot, label);
    assert.ok(ref, `no ref for ${label}`);
    return { sid, ref };
  }

  it('typing into a button is element_not_interactable (Camofox: element_not_actionable, not fillable)', async () => {
    const { sid, ref } = await open(s.site.url('/form'), 'button "Send"');
    const refused = await call(sid, 'browser_type', { ref, text: 'x' });
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'element_not_interactable', JSON.stringify(refused.body));
  });

  it('a disabled button is element_not_interactable (Camofox: a Playwright wait that ran out, no code)', async () => {
    const { sid, ref } = await open(disabledUrl, 'button "Locked"');
    const refused = await call(sid, 'browser_click', { ref });
    assert.equal(refused.body.error?.code, 'element_not_interactable', JSON.stringify(refused.body));
  });

  it('a covered button is element_covered, naming the cover as the engine does', async () => {
    const { sid, ref } = await open(s.site.url('/covered'), 'button "Hidden action"');
    const refused = await call(sid, 'browser_click', { ref });
    assert.equal(refused.body.error?.code, 'element_covered', JSON.stringify(refused.body));
    assert.match(refused.body.error.message, /covered by div#overlay/);
    assert.match((await call(sid, 'browser_snapshot', { full: true })).body.result.snapshot, /^no$/m);
  });

  it('an element that left the page is stale_ref (Camofox: target is missing or detached)', async () => {
    const { sid, ref } = await open(s.site.url('/mutating'), 'button "Target"');
    const replace = refAfter((await call(sid, 'browser_snapshot')).body.result.snapshot, 'button "Replace"');
    assert.equal((await call(sid, 'browser_click', { ref: replace })).status, 200);
    const refused = await call(sid, 'browser_click', { ref });
    assert.equal(refused.body.error?.code, 'stale_ref', JSON.stringify(refused.body));
  });

  // Failures no page can be made to produce on demand, answered by the server as Camofox words them.
  const scripted: {
    camofox: string;
    status: number;
    body: Record<string, unknown>;
    code: string;
    httpStatus: number;
    tabGone: boolean;
  }[] = [
    {
      camofox: 'an older server: 400 Unknown ref, no code',
      status: 400,
      body: { error: 'Unknown ref: e3' },
      code: 'stale_ref',
      httpStatus: 409,
      tabGone: false,
    },
    {
      camofox: 'navigation_race: the page navigated under the click',
      status: 409,
      body: {
        error: 'locator.click: Execution context was destroyed, most likely because of a navigation',
        code: 'navigation_race',
        retryable: true,
        recovery: 'snapshot_then_retry',
      },
      code: 'stale_ref',
      httpStatus: 409,
      tabGone: false,
    },
    {
      camofox: 'tab_timeout: the handler ran out of time and Camofox closed the tab',
      status: 410,
      body: { error: 'action timed out after 30000ms', code: 'tab_timeout', recovery: 'create_new_tab' },
      code: 'command_timeout',
      httpStatus: 504,
      tabGone: true,
    },
    {
      camofox: 'page_crashed',
      status: 410,
      body: { error: 'Page crashed', code: 'page_crashed', recovery: 'create_new_tab' },
      code: 'browser_crashed',
      httpStatus: 503,
      tabGone: true,
    },
    {
      camofox: 'tab_unresponsive: another call holds the tab lock',
      status: 503,
      body: { error: 'Tab lock queue timeout', code: 'tab_unresponsive', recovery: 'create_new_tab' },
      code: 'browser_busy',
      httpStatus: 503,
      tabGone: false,
    },
    {
      camofox: 'an error it does not classify',
      status: 500,
      body: { error: 'Internal server error' },
      code: 'backend_unavailable',
      httpStatus: 503,
      tabGone: false,
    },
  ];
  for (const c of scripted) {
    it(`${c.camofox} → ${c.code}${c.tabGone ? ', and the next call needs a new page' : ''}`, async () => {
      const { sid, ref } = await open(s.site.url('/form'), 'button "Check trust"');
      s.camofox.failNext('click', c.status, c.body);
      const refused = await call(sid, 'browser_click', { ref });
      assert.equal(refused.status, c.httpStatus, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, c.code);
      const next = await call(sid, 'browser_snapshot');
      if (c.tabGone) assert.equal(next.body.error?.code, 'no_page', JSON.stringify(next.body));
      else assert.equal(next.status, 200, JSON.stringify(next.body));
    });
  }
});

describe('Camofox with a user and a session key the owner keeps (browser.camofox.user_id, session_key)', () => {
  const s = useCamofoxStage({ camofox: { user_id: 'owner-profile', session_key: 'research' } });

  it('browses as that user under that key, and never deletes the user when a session closes', async () => {
    const sid = await s.gw.createSession();
    const nav = await s.gw.request('POST', `/v1/sessions/${sid}/tools/browser_navigate`, {
      body: { url: s.site.url('/form') },
    });
    assert.equal(nav.status, 200, JSON.stringify(nav.body));
    assert.deepEqual(
      { userId: s.camofox.tabBodies[0]?.userId, listItemId: s.camofox.tabBodies[0]?.listItemId },
      { userId: 'owner-profile', listItemId: 'research' },
    );
    assert.equal((await s.gw.request('DELETE', `/v1/sessions/${sid}`)).status, 200);
    assert.deepEqual(
      s.camofox.requests.filter((r) => r.startsWith('DELETE')),
      [],
      'the owner-kept user is not deleted',
    );
  });
});

/** The session's live view as GET /v1/sessions/{id} and the dashboard's session show it. */
async function liveViewOf(gw: TestGateway, url: string): Promise<{ api: unknown; dashboard: unknown }> {
  const sid = await gw.createSession();
  const nav = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_navigate`, { body: { url } });
  assert.equal(nav.status, 200, JSON.stringify(nav.body));
  const api = await gw.request('GET', `/v1/sessions/${sid}`);
  const dashboard = await gw.request('GET', `/v1/dashboard/sessions/${sid}`, {
    headers: { authorization: `Bearer ${gw.operatorKey}` },
  });
  assert.equal(dashboard.status, 200, JSON.stringify(dashboard.body));
  return { api: api.body.browser.live_url, dashboard: dashboard.body.session.backend.live_url };
}

describe("Camofox's live view: the VNC port it reports in GET /health becomes the session's live_url", () => {
  // A configured address that is no web address is never shown: Camofox's own report is used.
  const s = useCamofoxStage({ fake: { vncPort: 6080 }, camofox: { vnc_url: 'javascript:alert(1)' } });

  it('leads to the noVNC page on the Camofox host, in the API and on the dashboard', async () => {
    const { api, dashboard } = await liveViewOf(s.gw, s.site.url('/form'));
    const expected = `http://127.0.0.1:6080/`;
    assert.deepEqual({ api, dashboard }, { api: expected, dashboard: expected });
    assert.ok(s.camofox.requests.includes('GET /health'));
  });
});

describe("Camofox's live view from GET /vnc/status (Camofox 1.13 and later)", () => {
  const s = useCamofoxStage({ fake: { vncStatus: { novncPort: 6081, path: '/vnc.html?autoconnect=1' } } });

  it('uses its noVNC port and path', async () => {
    const { api } = await liveViewOf(s.gw, s.site.url('/form'));
    assert.equal(api, 'http://127.0.0.1:6081/vnc.html?autoconnect=1');
  });
});

describe('Camofox with browser.camofox.vnc_url set', () => {
  const s = useCamofoxStage({
    fake: { vncPort: 6080 },
    camofox: { vnc_url: 'https://watch.example.test/vnc' },
  });

  it("shows the owner's address rather than the one Camofox reports", async () => {
    const { api } = await liveViewOf(s.gw, s.site.url('/form'));
    assert.equal(api, 'https://watch.example.test/vnc');
    assert.ok(!s.camofox.requests.includes('GET /vnc/status'));
  });
});
