/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call, @typescript-eslint/no-unsafe-argument -- tests read JSON bodies */
/**
 * The extension's site checks on the user's tab where the obvious place to look is not enough:
 * - a ref inside an iframe is judged on the iframe's origin (a site revoked after the frame loaded
 *   stays on screen, and the network rules only judge new requests);
 * - grants made with `tabgate grants add|revoke` reach the network rules with no agent action and no
 *   popup open, by the worker's 30 s alarm;
 * - `domain_changed` holds after Chrome stops and restarts the service worker.
 * The other site's server records every request, so "nothing was clicked" is a request it never got.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENABLED_CONFIG } from '../gateway/fixtures/gateway.js';
import { EXTENSION_ID } from '../../src/protocol/index.js';
import { runTabgate } from '../helpers/tabgate-cli.js';
import { startSiteServers, type SiteServers } from '../security/fixtures/site-servers.js';
import { refusedByExtension, sharedTabCalls } from './fixtures/shared-tab-calls.js';
import { startStage, status, waitFor, type Stage } from './fixtures/paired-setup.js';
import { shareInPopup, type PopupPage } from './fixtures/popup-page.js';

/** The worker reads the shared session's sites every 3 s; a few periods of slack for a loaded host. */
const SITES_BOUND_MS = 12_000;

describe("the extension's site check on the user's tab", () => {
  let servers: SiteServers;
  let stage: Stage;
  let sid: string;
  let popup: PopupPage;
  /** A DevTools session on the shared tab: the person's own address bar, not the agent. */
  let tabSession: string;

  const { call, ok, refOf } = sharedTabCalls(
    () => stage,
    () => sid,
  );
  const sitesOf = async () => (await stage.gw.request('GET', `/v1/sessions/${sid}`)).body.sites;
  const pings = () => servers.otherRequests.filter((line) => line.endsWith(' /pinged')).length;
  /** Loads a page of the other site in the shared tab as a person would; Chrome's error, if any. */
  const personOpensOther = async (path: string) =>
    (
      await stage.browser.cdp.send<{ errorText?: string }>(
        'Page.navigate',
        { url: servers.otherUrl(path) },
        tabSession,
      )
    ).errorText;
  const grants = async (what: 'add' | 'revoke') => {
    const run = await runTabgate(stage.gw.home, [
      'grants',
      '--gateway',
      stage.gw.url,
      what,
      sid,
      servers.otherOrigin,
    ]);
    assert.equal(run.code, 0, run.stderr);
  };
  const decide = async (decision: 'grant' | 'revoke', site: string) => {
    const selector = `button[data-decision="${decision}"][data-site="${site}"]`;
    await waitFor(`the popup to offer ${decision} for ${site}`, () => popup.visible(selector));
    await popup.click(selector);
  };

  before(async () => {
    servers = await startSiteServers();
    stage = await startStage({
      config: {
        browser: { extension_control: { ...ENABLED_CONFIG.browser.extension_control, command_timeout: 20 } },
        safety: { approvals: { user_tab: 'none' } },
      },
      browserArgs: [servers.resolverRule],
    });
    ({
      sid,
      targetSession: tabSession,
      popup,
    } = await shareInPopup(stage, servers.grantedUrl('/links'), {
      title: 'site guard',
      sites: [servers.otherOrigin],
    }));
  });
  after(async () => {
    await popup?.close();
    await stage?.close();
    await servers?.close();
  });

  it('refuses a ref inside an iframe of a site revoked since it loaded, clicking nothing', async () => {
    await decide('grant', servers.otherOrigin);
    await waitFor('the gateway to hold the grant', async () =>
      (await sitesOf()).granted.includes(servers.otherOrigin),
    );
    await ok('browser_navigate', { url: servers.grantedUrl('/framed-button') });
    // While granted, the same click reaches the frame: the refusal below is the check, not a dead ref.
    await ok('browser_click', { ref: await refOf('button "Ping other"') });
    await waitFor('the frame to send its ping', async () => pings() === 1);

    await decide('revoke', servers.otherOrigin);
    await waitFor('the gateway to drop the grant', async () => (await sitesOf()).granted.length === 0);
    const ref = await refOf('button "Ping other"');
    const refused = await call('browser_click', { ref });
    refusedByExtension(refused, 'site_not_granted');
    assert.match(refused.body.error.message, new RegExp(`${ref} is in a frame on http://other\\.test`));
    // The frame notes each click as it is dispatched: one note, the granted click's, means no other came.
    const { snapshot } = await ok('browser_snapshot', { full: true });
    assert.equal(
      (snapshot ?? '').split('(pinged)').length - 1,
      1,
      'nothing was clicked in the revoked frame',
    );
    assert.equal(pings(), 1);
    // The page itself is still the shared site: reading it and acting on it outside the frame go on.
    await ok('browser_scroll', { direction: 'down' });
  });

  it('lets a site granted with `tabgate grants add` through the rules within seconds, no agent action', async () => {
    // Nothing but the worker's own reading may tell it: no popup page refreshes the sites while open.
    await popup.close();
    await stage.browser.cdp.send(
      'Page.navigate',
      { url: `chrome-extension://${EXTENSION_ID}/manifest.json` },
      stage.browser.popup,
    );
    assert.equal(await personOpensOther('/before-add'), 'net::ERR_BLOCKED_BY_CLIENT');
    await grants('add');
    const start = Date.now();
    let tries = 0;
    await waitFor(
      'the rules to let the granted site in',
      async () => (await personOpensOther(`/after-add-${++tries}`)) === undefined,
      SITES_BOUND_MS,
    );
    process.stdout.write(`\n# tabgate grants add reached the rules in ${Date.now() - start} ms\n`);
    assert.ok(servers.otherRequests.some((line) => line.includes('/after-add-')));
  });

  it('closes a site revoked with `tabgate grants revoke` in the rules within seconds, no agent action', async () => {
    await grants('revoke');
    const start = Date.now();
    let tries = 0;
    await waitFor(
      'the rules to close the revoked site',
      async () => (await personOpensOther(`/after-revoke-${++tries}`)) === 'net::ERR_BLOCKED_BY_CLIENT',
      SITES_BOUND_MS,
    );
    process.stdout.write(`\n# tabgate grants revoke reached the rules in ${Date.now() - start} ms\n`);
    // The attempt the rules refused sent nothing to the other site.
    assert.ok(!servers.otherRequests.some((line) => line.endsWith(` /after-revoke-${tries}`)));
  });

  it('refuses a ref of a page that moved to another origin with domain_changed after a worker restart', async () => {
    await grants('add');
    await ok('browser_navigate', { url: servers.grantedUrl('/links') });
    const ref = await refOf('link "Granted link"');
    await ok('browser_navigate', { url: servers.otherUrl('/moved') });
    const boots = await stage.browser.cdp.evaluate<number>(
      stage.browser.popup,
      `chrome.storage.session.get('boot_count').then((v) => v.boot_count ?? 0)`,
    );
    await stage.browser.killWorker();
    // A message from an extension page starts the worker again at once, as the popup opening does;
    // the gateway routes to it once its socket is back (a tab list changes nothing the guard keeps).
    await status(stage.browser);
    await waitFor(
      'the worker to serve the session again',
      async () => (await call('browser_tabs')).status === 200,
    );
    assert.ok(
      (await stage.browser.cdp.evaluate<number>(
        stage.browser.popup,
        `chrome.storage.session.get('boot_count').then((v) => v.boot_count ?? 0)`,
      )) > boots,
      'a new worker life answered',
    );
    // Refused before any input was sent: the tab list can be read at once.
    refusedByExtension(await call('browser_click', { ref }), 'domain_changed');
    const tabs = (await ok('browser_tabs')).tabs ?? [];
    assert.ok(
      tabs.some((tab) => tab.url === servers.otherUrl('/moved')),
      `the tab stayed where it was: ${JSON.stringify(tabs)}`,
    );
  });
});
