/**
 * The gateway hands its clock to the backends it chooses: a session of the local Chromium is closed
 * once the gateway's clock (a manual one here) passes browser.inactivity_timeout, and its next call
 * says so with session_reset. No test waits out an idle timeout in real time.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DEFAULT_BROWSER_SETTINGS } from '../../src/gateway/config/browser-settings.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { toolSession } from '../security/fixtures/tool-session.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';

describe("the gateway's backends run on its clock", () => {
  const clock = new ManualClock();
  let site: TestSite;
  let gw: TestGateway;
  let sid = '';
  const { ok } = toolSession((tool, args) =>
    gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args }),
  );

  before(async () => {
    site = await startTestSite();
    gw = await startTestGateway({ clock });
    sid = await gw.createSession('idle');
  });
  after(async () => {
    await gw?.close();
    await site?.close();
  });

  it("closes a local session idle past browser.inactivity_timeout on the gateway's clock", async () => {
    const idleMs = DEFAULT_BROWSER_SETTINGS.inactivityTimeoutSeconds * 1000;
    await ok('browser_navigate', { url: site.url('/page2') });
    clock.advance(idleMs);
    const kept = await ok('browser_snapshot');
    assert.equal(kept.url, site.url('/page2'));
    assert.equal(kept.notices, undefined);
    // Past the timeout by more than one sweep (a quarter of it): the sweep has closed the session.
    clock.advance(idleMs + idleMs / 2);
    const reset = await ok('browser_snapshot');
    assert.equal(reset.url, 'about:blank');
    assert.match(reset.notices?.[0] ?? '', /^session_reset: .*idle.*about:blank/);
  });
});
