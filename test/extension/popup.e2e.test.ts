/**
 * The popup as a person uses it: the real popup page of the real extension in a real Chromium, driven
 * with mouse presses and key-by-key typing at human speed, against a real gateway on a port that is not
 * the default one. Each test starts from an unpaired browser with extension control on.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { DEFAULT_GATEWAY_URL } from '../../src/extension/background/durable-state.js';
import { ENABLED_CONFIG } from '../gateway/fixtures/gateway.js';
import { collect } from './pairing-helpers.js';
import {
  approvePairing,
  callTool,
  requestPairing,
  revokePairings,
  startStage,
  status,
  waitFor,
  type Stage,
} from './fixtures/paired-setup.js';
import { openPopup, type PopupPage } from './fixtures/popup-page.js';

const REVOKED = "This browser's pairing was revoked — Pair again.";
const FEATURE_OFF =
  'Extension control is off on this gateway: set browser.extension_control.enabled: true in ~/.tabgate/config.yaml';

describe('the popup', () => {
  let stage: Stage;
  let popup: PopupPage | null = null;

  before(async () => {
    stage = await startStage({ pair: false });
    assert.notEqual(new URL(stage.gw.url).port, '8642', 'the gateway is not on the default port');
  });
  after(async () => {
    await stage?.close();
  });
  beforeEach(async () => {
    stage.gw.writeConfig(ENABLED_CONFIG);
    await stage.browser.ask({ type: 'unpair' });
    await stage.browser.ask({ type: 'set-gateway', url: DEFAULT_GATEWAY_URL });
  });
  afterEach(async () => {
    await popup?.close();
    popup = null;
  });

  /** Opens a page of the test site in a new tab, and the popup for that tab. */
  async function popupOnNewTab(): Promise<{ page: PopupPage; tabId: number }> {
    const { targetId } = await stage.browser.cdp.openPage(stage.site.url('/form'));
    const tabId = await waitFor('the tab to load', () =>
      stage.browser.tabIdOfTarget(targetId).catch(() => null),
    );
    popup = await openPopup(stage.browser, tabId);
    return { page: popup, tabId };
  }

  /** Pairs through the shared helpers, as `tabgate pair approve CODE` would. */
  async function pair(): Promise<void> {
    const { code } = await requestPairing(stage);
    await approvePairing(stage.gw, code);
    await waitFor('the extension to hold its token', async () => (await status(stage.browser)).paired);
  }

  /** Clicks "Share this tab with <title>" in the popup and waits until the controller is up. */
  async function shareFromPopup(page: PopupPage, title: string): Promise<string> {
    const sessionId = await stage.gw.createSession(title);
    await page.waitForText(`Share this tab with ${title}`);
    await page.click(`button[data-session-id="${sessionId}"]`);
    await page.waitForText(`Sharing with ${title}`);
    await waitFor(
      'the controller to connect',
      async () => (await status(stage.browser)).connection.state === 'connected',
    );
    return sessionId;
  }

  it('says not paired and offers Pair but no Unpair before any pairing', async () => {
    const page = (popup = await openPopup(stage.browser));
    const text = await page.waitForText('Not paired');
    assert.ok(await page.visible('#pair'));
    assert.equal(await page.visible('#unpair'), false);
    assert.doesNotMatch(text, /Unpair|not sharing/);
  });

  it('keeps a gateway address typed at human speed, and pairs and shares through that gateway', async () => {
    const { page, tabId } = await popupOnNewTab();
    const address = stage.gw.url;
    // Half typed, the person pauses while the popup refreshes twice, then finishes.
    await page.typeInto('#gateway-url', address.slice(0, 12));
    const paused = await page.refreshes();
    await waitFor('two refreshes mid-typing', async () => (await page.refreshes()) >= paused + 2);
    await page.typeMore(address.slice(12));
    assert.equal(await page.value('#gateway-url'), address);

    await page.click('#pair');
    await approvePairing(stage.gw, await page.shownText('#code'));
    await page.waitForText('Paired, not sharing');
    assert.equal((await status(stage.browser)).gateway_url, address);

    const sessionId = await shareFromPopup(page, 'typed gateway');
    assert.deepEqual((await status(stage.browser)).share?.tab_ids, [tabId]);
    assert.equal((await callTool(stage, sessionId, 'browser_snapshot')).status, 200);
  });

  it('shows a malformed gateway address as an error next to the field that stays', async () => {
    const page = (popup = await openPopup(stage.browser));
    await page.typeInto('#gateway-url', 'http://127.0.0.1:86421:9123');
    await page.click('#pair');
    const error = await page.shownText('#gateway-error');
    assert.match(error, /not a valid address/);
    const shownAt = await page.refreshes();
    await waitFor('two more refreshes', async () => (await page.refreshes()) >= shownAt + 2);
    assert.equal(await page.shownText('#gateway-error'), error);
    assert.equal(await page.value('#gateway-url'), 'http://127.0.0.1:86421:9123');
    assert.equal((await status(stage.browser)).pending_pairing, null);
  });

  it('cancels a pending pairing, after which approving its code pairs nothing', async () => {
    await stage.browser.ask({ type: 'set-gateway', url: stage.gw.url });
    const page = (popup = await openPopup(stage.browser));
    await page.click('#pair');
    const code = await page.shownText('#code');
    const approveUrl = await stage.browser.cdp.evaluate<string>(
      page.session,
      `document.getElementById('approve-link').href`,
    );
    await page.click('#cancel-pairing');
    const text = await page.waitForText('Not paired');
    assert.doesNotMatch(text, new RegExp(code));
    assert.equal(await page.visible('#cancel-pairing'), false);

    // The gateway forgot the request: its code approves nothing, and nobody can collect a token for it.
    await assert.rejects(approvePairing(stage.gw, code), /pairing_code_invalid/);
    const pairingId = decodeURIComponent(new URL(approveUrl).pathname.split('/').pop() ?? '');
    assert.equal((await collect(stage.gw, pairingId)).status, 404);
    assert.equal((await status(stage.browser)).paired, null);
    assert.match(await page.text(), /Not paired/);
  });

  it("unpairs on the gateway too: Unpair revokes this browser's grant", async () => {
    await pair();
    const page = (popup = await openPopup(stage.browser));
    await page.click('#unpair');
    await page.waitForText('Not paired');
    const listed = await stage.gw.request('GET', '/v1/pairings', {
      headers: { authorization: `Bearer ${stage.gw.operatorKey}` },
    });
    const grants = listed.body as { grants: { revoked_at: string | null }[] };
    assert.ok(grants.grants.length > 0);
    assert.ok(
      grants.grants.every((g) => g.revoked_at !== null),
      'no grant of this browser is live',
    );
  });

  it('says the pairing was revoked and offers Pair again, with no trace of the old share', async () => {
    await pair();
    const { page } = await popupOnNewTab();
    await shareFromPopup(page, 'revoked share');
    await revokePairings(stage.gw);
    const text = await page.waitForText(REVOKED);
    assert.equal(await page.shownText('#pair'), 'Pair again');
    assert.doesNotMatch(text, /Sharing with|revoked share|Unpair|Invalid API key/);
    const view = await status(stage.browser);
    assert.equal(view.share, null);
    assert.equal(view.paired, null);
  });

  it('names the config key to set when extension control is off, and shows no share', async () => {
    await pair();
    const { page } = await popupOnNewTab();
    await shareFromPopup(page, 'switched off');
    stage.gw.writeConfig({ browser: { extension_control: { enabled: false } } });
    const text = await page.waitForText(FEATURE_OFF);
    assert.doesNotMatch(text, /Sharing with|switched off|Share this tab/);
    await waitFor('the share to end', async () => (await status(stage.browser)).share === null);
  });
});
