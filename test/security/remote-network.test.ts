/**
 * A remote browser (`browser.cdp_url`, the path every cloud provider's session takes too) never reaches
 * a private address, whatever the page does: a real gateway drives a real Chromium the test launched,
 * on a public page (127.0.0.2, allowed through `browser.allowed_private_hosts` because everything here
 * is loopback) that reaches for a private server (127.0.0.3) by every route. The private server counts
 * what arrives; it must see nothing. Metadata names and the metadata address are mapped to it inside
 * the browser, so a leak to them is counted as well.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type HttpResult, type TestGateway } from '../gateway/fixtures/gateway.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { waitFor } from '../helpers/wait-for.js';
import { PUBLIC_HOST, startNetworkSites, type NetworkSites } from './fixtures/network-sites.js';
import { errorCode, toolSession } from './fixtures/tool-session.js';

describe('a remote browser never reaches a private address', () => {
  let sites: NetworkSites;
  let chromium: LocalChromium;
  let gw: TestGateway;
  let sid: string;

  const call = (tool: string, args: Record<string, unknown> = {}): Promise<HttpResult> =>
    gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args });
  const { ok, refOf } = toolSession(call);
  /**
   * Asserted once every attempt of the test is over: refused in a call's answer, in the notice of a
   * refused navigation, or reported by the page. A refused request never leaves the browser, so none is
   * on its way then.
   */
  const assertNothingReachedPrivate = () => assert.deepEqual(sites.privateRequests, []);
  /** Waits (calling `browser_tabs`) until the session was told that each of `paths` was kept from opening. */
  const keptFromOpening = async (paths: string[], seen: string[] = []) => {
    const told = (path: string) =>
      seen.some((notice) => notice.includes(`kept from opening ${sites.privateUrl(path)}`));
    await waitFor(
      async () => {
        if (paths.every(told)) return true;
        seen.push(...((await ok('browser_tabs')).notices ?? []));
        return paths.every(told);
      },
      { what: `notices that ${paths.join(' and ')} were kept from opening` },
    );
  };

  before(async () => {
    sites = await startNetworkSites();
    chromium = await launchChromium({ extraArgs: [sites.metadataResolverRule] });
    gw = await startTestGateway({
      config: {
        browser: {
          cdp_url: chromium.httpEndpoint,
          allowed_private_hosts: [PUBLIC_HOST],
          command_timeout: 20,
        },
      },
    });
  });
  after(async () => {
    await gw?.close();
    chromium?.kill();
    await sites?.close();
  });

  it('refuses browser_navigate to a private address with private_url_blocked, and opens an allowed host', async () => {
    sid = await gw.createSession();
    const refused = await call('browser_navigate', { url: sites.privateUrl('/typed') });
    assert.equal(refused.status, 403);
    assert.equal(errorCode(refused), 'private_url_blocked');
    const metadata = await call('browser_navigate', {
      url: sites.metadataUrl('metadata.google.internal', '/typed'),
    });
    assert.equal(errorCode(metadata), 'metadata_url_blocked');
    assert.equal((await ok('browser_navigate', { url: sites.publicUrl('/') })).title, 'Public home');
    assertNothingReachedPrivate();
  });

  it('refuses an HTTP redirect to a private address before its request is made, and the tab stays usable', async () => {
    sid = await gw.createSession();
    await ok('browser_navigate', { url: sites.publicUrl('/') });
    await ok('browser_navigate', { url: sites.publicUrl('/links') });
    const redirected = await call('browser_navigate', { url: sites.publicUrl('/redirect') });
    assert.equal(redirected.status, 403, JSON.stringify(redirected.body));
    assert.equal(errorCode(redirected), 'private_url_blocked');
    const started = performance.now();
    const snapshot = await ok('browser_snapshot');
    assert.ok(performance.now() - started < 3000, 'the snapshot after a refusal answered at once');
    assert.equal(snapshot.url, sites.publicUrl('/links'));
    const { tabs = [] } = await ok('browser_tabs');
    assert.deepEqual(
      tabs.map((tab) => tab.url),
      [sites.publicUrl('/links')],
    );
    assert.equal((await ok('browser_back')).title, 'Public home');
    assertNothingReachedPrivate();
  });

  it('keeps a clicked link off the private server, and the tab answers the next calls at once', async () => {
    sid = await gw.createSession();
    await ok('browser_navigate', { url: sites.publicUrl('/') });
    await ok('browser_navigate', { url: sites.publicUrl('/links') });
    const clicked = await ok('browser_click', { ref: await refOf('link "Private link"') });
    assert.ok(
      clicked.notices?.some((notice) => /kept from opening .*127\.0\.0\.3/.test(notice)),
      JSON.stringify(clicked),
    );
    const { tabs = [] } = await ok('browser_tabs');
    assert.deepEqual(
      tabs.map((tab) => tab.url),
      [sites.publicUrl('/links')],
    );
    assert.equal((await ok('browser_snapshot')).title, 'Links');
    assert.equal((await ok('browser_back')).title, 'Public home');
    assertNothingReachedPrivate();
  });

  it('keeps popups off the private server from their first navigation', async () => {
    sid = await gw.createSession();
    await ok('browser_navigate', { url: sites.publicUrl('/links') });
    const notices = (await ok('browser_click', { ref: await refOf('link "Private new tab"') })).notices ?? [];
    notices.push(
      ...((await ok('browser_click', { ref: await refOf('button "Private popup"') })).notices ?? []),
    );
    await keptFromOpening(['/blank', '/popup'], notices);
    const { tabs = [] } = await ok('browser_tabs');
    assert.equal(tabs.length, 3, JSON.stringify(tabs));
    for (const tab of tabs) assert.doesNotMatch(tab.url, /127\.0\.0\.3/);
    for (const id of [2, 3]) {
      const activated = await ok('browser_tab_activate', { tab_id: id });
      assert.doesNotMatch(String(activated.url), /127\.0\.0\.3/);
      assert.doesNotMatch(String((await ok('browser_snapshot')).url), /127\.0\.0\.3/);
    }
    assertNothingReachedPrivate();
  });

  it('keeps page scripts, workers, frames and images off the private server', async () => {
    sid = await gw.createSession();
    await ok('browser_navigate', { url: sites.publicUrl('/scripts') });
    await sites.settled('scripts');
    await ok('browser_navigate', { url: sites.publicUrl('/embeds') });
    await sites.settled('embeds');
    assert.deepEqual(sites.privateRequests, []);
  });

  it('keeps a meta refresh and a script redirect off the private server', async () => {
    sid = await gw.createSession();
    for (const path of ['/meta-refresh', '/script-redirect']) {
      // The page opened; where it then sent itself was refused, and the tab stayed on it.
      const opened = await ok('browser_navigate', { url: sites.publicUrl(path) });
      await keptFromOpening([path === '/meta-refresh' ? '/meta' : '/location'], [...(opened.notices ?? [])]);
      const { tabs = [] } = await ok('browser_tabs');
      assert.deepEqual(
        tabs.map((tab) => tab.url),
        [sites.publicUrl(path)],
        `${path}: ${JSON.stringify(opened)}`,
      );
    }
    assertNothingReachedPrivate();
  });

  it('refuses cloud metadata by address and by name, linked or redirected to, from an allowed host', async () => {
    sid = await gw.createSession();
    await ok('browser_navigate', { url: sites.publicUrl('/links') });
    for (const label of ['link "Metadata address"', 'link "Metadata name"']) {
      const clicked = await ok('browser_click', { ref: await refOf(label) });
      assert.ok(
        clicked.notices?.some((notice) => /cloud metadata endpoint/.test(notice)),
        JSON.stringify(clicked),
      );
    }
    const redirected = await ok('browser_click', { ref: await refOf('link "Redirect to metadata"') });
    assert.ok(
      redirected.notices?.some((notice) => /cloud metadata endpoint/.test(notice)),
      JSON.stringify(redirected),
    );
    assertNothingReachedPrivate();
  });
});
