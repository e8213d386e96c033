/**
 * Site grants on Camofox (docs/safety.md, "What enforces it, where"): a real gateway whose sessions run
 * on a fake Camofox server driving a real Chromium that maps the test sites to loopback, under
 * `safety.mode.remote: ask`. Camofox offers no network hook, so the gateway judges a typed URL before
 * Camofox hears of it (the other site receives 0 requests) and the page every action leaves behind
 * before the agent may read or act on it (the page's own request has left by then: that is the limit
 * the docs state).
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { startTestGateway, type HttpResult, type TestGateway } from '../gateway/fixtures/gateway.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { waitFor } from '../helpers/wait-for.js';
import { startFakeCamofox, type FakeCamofox } from '../providers/fixtures/fake-camofox.js';
import { CATEGORY_HOST, DENIED_HOST, startSiteServers, type SiteServers } from './fixtures/site-servers.js';
import { errorCode, toolSession } from './fixtures/tool-session.js';
import { SAFETY_CONFIG } from './site-grants-cases.js';

describe('site grants on Camofox', () => {
  let servers: SiteServers;
  let chromium: LocalChromium;
  let camofox: FakeCamofox;
  let gw: TestGateway;
  let sid: string;
  /** Requests the other server may have seen: a page's own navigation reaches it before Camofox reports. */
  let expectedOther = 0;

  const call = (tool: string, args: Record<string, unknown> = {}): Promise<HttpResult> =>
    gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args });
  const { ok, refOf } = toolSession(call);
  const refused = (result: HttpResult, code: string) => {
    assert.equal(result.status, 403, JSON.stringify(result.body));
    assert.equal(errorCode(result), code, JSON.stringify(result.body));
  };
  const messageOf = (result: HttpResult) => (result.body as { error: { message: string } }).error.message;
  /** Camofox was never asked to open anything on `host`. */
  const camofoxNeverOpened = (host: string) =>
    assert.deepEqual(
      camofox.tabBodies.filter((body) => String(body.url).includes(host)),
      [],
      JSON.stringify(camofox.tabBodies),
    );
  /** The rule each audit row of the session's `action` names, in the log's order. */
  const rulesOfRows = async (action: string) => {
    const audit = await gw.request('GET', `/v1/audit?session=${sid}`);
    return (audit.body as { entries: { action: string; context: { rule?: string } | null }[] }).entries
      .filter((entry) => entry.action === action)
      .map((entry) => entry.context?.rule);
  };
  /** The page the other site served never reached the agent: the tab it was in is gone from the session. */
  const pageDropped = async () => {
    const snapshot = await call('browser_snapshot');
    assert.equal(errorCode(snapshot), 'no_page', JSON.stringify(snapshot.body));
  };

  before(async () => {
    servers = await startSiteServers();
    chromium = await launchChromium({ extraArgs: [servers.resolverRule] });
    camofox = await startFakeCamofox({ cdpUrl: chromium.wsEndpoint });
    gw = await startTestGateway({
      config: {
        browser: { cloud_provider: 'camofox', allow_private_urls: true, command_timeout: 20 },
        safety: SAFETY_CONFIG,
      },
      env: { CAMOFOX_URL: camofox.url },
    });
    const created = await gw.request('POST', '/v1/sessions', {
      body: { title: 'sites', sites: [servers.grantedOrigin] },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    sid = (created.body as { session_id: string }).session_id;
  });
  afterEach(() => {
    assert.equal(servers.otherRequests.length, expectedOther, servers.otherRequests.join('\n'));
  });
  after(async () => {
    await gw?.close();
    await camofox?.close();
    chromium?.kill();
    await servers?.close();
  });

  it('refuses a site the session only asked for until the owner grants it', async () => {
    refused(await call('browser_navigate', { url: servers.grantedUrl('/') }), 'site_not_granted');
    camofoxNeverOpened('granted.test');
    const granted = await gw.request('POST', `/v1/sessions/${sid}/site-grants`, {
      body: { site: servers.grantedOrigin },
      headers: { authorization: `Bearer ${gw.operatorKey}` },
    });
    assert.equal(granted.status, 200, JSON.stringify(granted.body));
    assert.equal((await ok('browser_navigate', { url: servers.grantedUrl('/links') })).title, 'Links');
  });

  it('refuses a typed URL to another site before Camofox hears of it, naming the origin', async () => {
    const result = await call('browser_navigate', { url: servers.otherUrl('/typed') });
    refused(result, 'site_not_granted');
    assert.match(messageOf(result), /other\.test/);
    assert.match(messageOf(result), /tabgate grants add/);
    camofoxNeverOpened('other.test');
    assert.equal((await ok('browser_snapshot')).title, 'Links');
  });

  it('refuses a URL whose user name is the granted site', async () => {
    const tricky = servers
      .otherUrl('/userinfo')
      .replace('http://', `http://${new URL(servers.grantedOrigin).host}@`);
    assert.notEqual((await call('browser_navigate', { url: tricky })).status, 200);
    camofoxNeverOpened('other.test');
  });

  it('blocks a high-risk category site and a denied site with site_blocked', async () => {
    const before = (await rulesOfRows('browser_navigate')).length;
    for (const host of [CATEGORY_HOST, DENIED_HOST]) {
      refused(await call('browser_navigate', { url: servers.otherUrl('/blocked', host) }), 'site_blocked');
      camofoxNeverOpened(host);
    }
    // Oldest first: each row names the rule that refused it.
    assert.deepEqual((await rulesOfRows('browser_navigate')).slice(-2), ['high_risk', 'denied']);
    assert.equal((await rulesOfRows('browser_navigate')).length, before + 2);
  });

  it('answers a click that took the page to another site with site_not_granted and drops that page', async () => {
    await ok('browser_navigate', { url: servers.grantedUrl('/links') });
    const clicked = await call('browser_click', { ref: await refOf('link "Other link"') });
    expectedOther = servers.otherRequests.length;
    refused(clicked, 'site_not_granted');
    assert.equal((await rulesOfRows('browser_click')).at(-1), 'not_granted');
    assert.doesNotMatch(JSON.stringify(clicked.body), /Other site/);
    await pageDropped();
    assert.equal((await ok('browser_navigate', { url: servers.grantedUrl('/links') })).title, 'Links');
  });

  it("refuses a granted page's own redirect to another site before the agent reads it", async () => {
    const opened = await call('browser_navigate', { url: servers.grantedUrl('/script-redirect') });
    if (opened.status === 200) {
      // The redirect came after Camofox answered: the next read of the page is refused instead.
      await waitFor(async () => errorCode(await call('browser_snapshot')) === 'site_not_granted', {
        what: 'the redirected page to be refused',
      });
    } else refused(opened, 'site_not_granted');
    expectedOther = servers.otherRequests.length;
    await pageDropped();
  });
});
