/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-assignment -- tests read JSON bodies */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { startFakeCamofox, type FakeCamofox } from './fixtures/fake-camofox.js';

const KEY = 'camofox-key-5566778899';

/**
 * A real Chromium behind a local Camofox server, the test site, and a gateway whose new sessions go to
 * that Camofox (with `browser.camofox` settings when given), for the enclosing describe.
 */
function useCamofoxStage(o: { apiKey?: string; camofox?: Record<string, unknown> }) {
  const stage = {} as { chromium: LocalChromium; camofox: FakeCamofox; site: TestSite; gw: TestGateway };
  before(async () => {
    stage.chromium = await launchChromium();
    stage.camofox = await startFakeCamofox({
      cdpUrl: stage.chromium.wsEndpoint,
      ...(o.apiKey ? { apiKey: o.apiKey } : {}),
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
