/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-argument -- tests read JSON bodies */
/**
 * Site grants on the user's own tab, enforced by the real extension in a real Chromium: the user shares
 * a tab on `granted.test`, the session asks for `other.test`, and the agent tries every way a page can
 * move a frame there. The other site's server records every request it receives: it must receive 0
 * until the person grants the site in the popup (clicks, as a person would), and 0 again once they
 * revoke it. The agent's API key cannot grant; an action on a page that moved since its snapshot gets
 * `domain_changed`.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { ENABLED_CONFIG } from '../gateway/fixtures/gateway.js';
import {
  CATEGORY_HOST,
  DENIED_HOST,
  ESCAPE_PATHS,
  ESCAPING_CONTROLS,
  startSiteServers,
  type SiteServers,
} from '../security/fixtures/site-servers.js';
import type { ToolResult } from '../security/fixtures/tool-session.js';
import { refusedByExtension, sharedTabCalls } from './fixtures/shared-tab-calls.js';
import { startStage, waitFor, type Stage } from './fixtures/paired-setup.js';
import { shareInPopup, type PopupPage } from './fixtures/popup-page.js';

/** A second site the session asks for, which the person denies. */
const ADS_ORIGIN = 'https://ads.example';

describe("site grants on the user's tab (the extension)", () => {
  let servers: SiteServers;
  let stage: Stage;
  let sid: string;
  let popup: PopupPage;
  /** Requests the other server may have seen on purpose (while it was granted). */
  let expectedOther = 0;

  const { call, ok, refOf } = sharedTabCalls(
    () => stage,
    () => sid,
  );
  const onLinks = () => ok('browser_navigate', { url: servers.grantedUrl('/links') });
  /**
   * Waits until Chrome shows that `path` of the other site was refused in a frame of some tab (its error
   * page for a blocked request, as the person's browser records it): the attempt is over, and it never
   * left the browser. Read from an extension page of the test's own, not through the agent.
   */
  const refusedInBrowser = (path: string) => {
    const url = servers.otherUrl(path);
    return waitFor(`Chrome to refuse ${url}`, () =>
      stage.browser.cdp.evaluate<boolean>(
        stage.browser.popup,
        `chrome.tabs.query({}).then(async (tabs) => {
          for (const tab of tabs)
            for (const frame of (await chrome.webNavigation.getAllFrames({ tabId: tab.id })) ?? [])
              if (frame.url === ${JSON.stringify(url)} && frame.errorOccurred) return true;
          return false;
        })`,
      ),
    );
  };
  /**
   * No tab of the share shows the other site's page, once the attempt to reach `path` is over (none:
   * the call's own answer was the refusal).
   */
  const neverOther = async (path?: string) => {
    if (path) await refusedInBrowser(path);
    const tabs = (await ok('browser_tabs')).tabs ?? [];
    for (const tab of tabs) assert.notEqual((tab as { title?: string }).title, 'Other', JSON.stringify(tabs));
  };
  const decide = async (decision: 'grant' | 'deny' | 'revoke', site: string) => {
    const selector = `button[data-decision="${decision}"][data-site="${site}"]`;
    await waitFor(`the popup to offer ${decision} for ${site}`, () => popup.visible(selector));
    await popup.click(selector);
  };
  /** The outcome and rule of the session's audit rows of navigations whose URL includes `part`. */
  const rowsOf = async (part: string) => {
    const audit = await stage.gw.request('GET', `/v1/audit?session=${sid}`);
    return (
      audit.body.entries as {
        action: string;
        arguments: { url?: string };
        outcome: string;
        context: { rule?: string } | null;
      }[]
    )
      .filter((entry) => entry.action === 'browser_navigate' && String(entry.arguments.url).includes(part))
      .map((entry) => `${entry.outcome} ${entry.context?.rule}`);
  };
  const sitesOf = async () => (await stage.gw.request('GET', `/v1/sessions/${sid}`)).body.sites;

  before(async () => {
    servers = await startSiteServers();
    stage = await startStage({
      config: {
        browser: { extension_control: { ...ENABLED_CONFIG.browser.extension_control, command_timeout: 20 } },
        // Site rules are under test here; approvals (a POST form click needs one) in approvals.e2e.
        safety: { sites: { deny: [DENIED_HOST] }, approvals: { user_tab: 'none' } },
      },
      browserArgs: [servers.resolverRule],
    });
    ({ sid, popup } = await shareInPopup(stage, servers.grantedUrl('/links'), {
      title: 'sites',
      sites: [servers.otherOrigin, ADS_ORIGIN],
    }));
  });
  // Each case ends once its attempt is over (refused in its answer, or by Chrome for the rules).
  afterEach(() => {
    assert.equal(servers.otherRequests.length, expectedOther, servers.otherRequests.join('\n'));
  });
  after(async () => {
    await popup?.close();
    await stage?.close();
    await servers?.close();
  });

  it('lists the site the session asks for in the popup, not granted', async () => {
    const text = await popup.waitForText(servers.otherOrigin);
    assert.match(text, /This session asks to open/);
    assert.deepEqual((await sitesOf()).requested, [servers.otherOrigin, ADS_ORIGIN]);
    assert.deepEqual((await sitesOf()).granted, []);
  });

  it('forgets a site the person denies in the popup, and grants it nothing', async () => {
    await decide('deny', ADS_ORIGIN);
    await waitFor('the gateway to drop the request', async () => (await sitesOf()).requested.length === 1);
    assert.deepEqual((await sitesOf()).requested, [servers.otherOrigin]);
    assert.deepEqual((await sitesOf()).granted, []);
    await waitFor('the popup to stop offering it', async () => !(await popup.text()).includes(ADS_ORIGIN));
  });

  it('refuses a typed URL to a site that is neither shared nor granted, in the extension', async () => {
    await onLinks();
    const result = await call('browser_navigate', { url: servers.otherUrl('/typed') });
    refusedByExtension(result, 'site_not_granted');
    assert.match(result.body.error.message, /other\.test/);
    await neverOther();
    // The extension names the rule with its refusal; the audit row keeps it.
    assert.deepEqual(await rowsOf('/typed'), ['controller_rejected not_granted']);
  });

  it("does not let the agent's API key grant a site", async () => {
    const granted = await stage.gw.request('POST', `/v1/browser-control/sessions/${sid}/sites/grant`, {
      body: { site: servers.otherOrigin },
    });
    assert.equal(granted.status, 403);
    assert.equal(granted.body.error.code, 'operator_required');
    refusedByExtension(
      await call('browser_navigate', { url: servers.otherUrl('/after-agent-grant') }),
      'site_not_granted',
    );
  });

  for (const label of [...ESCAPING_CONTROLS, 'button "Add other frame"' as const]) {
    it(`sends nothing to the other site when the agent clicks ${label}`, async () => {
      await onLinks();
      await ok('browser_click', { ref: await refOf(label) });
      await neverOther(ESCAPE_PATHS[label]);
    });
  }

  for (const [path, what, refused] of [
    ['/meta-refresh', 'a meta refresh', '/meta'],
    ['/script-redirect', "a page's script redirect", '/location'],
    ['/embeds', 'an iframe loaded with the page', '/frame'],
    ['/nested', 'an iframe that moves itself', '/frame-moved'],
  ] as const) {
    it(`sends nothing to the other site for ${what}`, async () => {
      await ok('browser_navigate', { url: servers.grantedUrl(path) });
      await neverOther(refused);
    });
  }

  it("refuses an HTTP redirect of browser_navigate at the other site's door", async () => {
    const url = servers.grantedUrl(`/redirect?to=${encodeURIComponent(servers.otherUrl('/redirected'))}`);
    const result = await call('browser_navigate', { url });
    // Chrome's network rules refused the hop; the extension reads the rule from its error page.
    refusedByExtension(result, 'site_not_granted');
    await neverOther('/redirected');
    assert.deepEqual(await rowsOf('/redirect?'), ['controller_rejected not_granted']);
  });

  it('blocks a high-risk category site and a denied site with site_blocked', async () => {
    for (const host of [CATEGORY_HOST, DENIED_HOST]) {
      const result = await call('browser_navigate', { url: servers.otherUrl('/blocked', host) });
      assert.equal(result.status, 403, JSON.stringify(result.body));
      assert.equal(result.body.error.code, 'site_blocked');
    }
    // Refused by the gateway before the extension heard of them, each row with its own rule.
    assert.deepEqual(await rowsOf('/blocked'), ['site_blocked high_risk', 'site_blocked denied']);
  });

  it('opens the site once the person grants it in the popup, and refuses it again once revoked', async () => {
    await decide('grant', servers.otherOrigin);
    await waitFor('the gateway to hold the grant', async () =>
      (await sitesOf()).granted.includes(servers.otherOrigin),
    );
    await popup.waitForText('You allowed:');
    const opened: ToolResult = await ok('browser_navigate', { url: servers.otherUrl('/while-granted') });
    assert.equal(opened.title, 'Other');
    expectedOther = servers.otherRequests.length;
    assert.ok(expectedOther > 0);

    // A ref of a snapshot taken on one origin, used after the page moved to another: domain_changed.
    await onLinks();
    const ref = await refOf('link "Granted link"');
    await ok('browser_navigate', { url: servers.otherUrl('/moved') });
    expectedOther = servers.otherRequests.length;
    refusedByExtension(await call('browser_click', { ref }), 'domain_changed');

    await ok('browser_navigate', { url: servers.grantedUrl('/second') });
    await decide('revoke', servers.otherOrigin);
    await waitFor('the gateway to drop the grant', async () => (await sitesOf()).granted.length === 0);
    refusedByExtension(
      await call('browser_navigate', { url: servers.otherUrl('/after-revoke') }),
      'site_not_granted',
    );
    // History: going back to the revoked site requests it again, and the rules refuse that request.
    await call('browser_back');
    await neverOther('/moved');
  });
});
