/**
 * Permission prompts on the browsers no person watches (docs/safety.md "Approvals"): the local Chromium
 * and a remote one (`browser.cdp_url`, the path every provider's session takes) refuse a page the
 * location, notifications, the camera and the microphone in every session, whatever the browser was
 * set to grant, so no page gets them without a person.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type HttpResult, type TestGateway } from '../gateway/fixtures/gateway.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { waitFor } from '../helpers/wait-for.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { toolSession } from './fixtures/tool-session.js';

const DENIED = 'states: geolocation=denied notifications=denied camera=denied microphone=denied';

for (const backend of ['local', 'remote'] as const) {
  describe(`page permissions on the ${backend} browser`, () => {
    let site: TestSite;
    let chromium: LocalChromium | undefined;
    let gw: TestGateway;
    let sid: string;
    const call = (tool: string, args: Record<string, unknown> = {}): Promise<HttpResult> =>
      gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args });
    const { ok } = toolSession(call);

    before(async () => {
      site = await startTestSite();
      // A remote browser set to grant a location to every page, as a provider's may be.
      if (backend === 'remote')
        chromium = await launchChromium({ extraArgs: ['--use-fake-ui-for-media-stream'] });
      // The test site is on loopback (a secure context, as these permissions need): the remote browser
      // may open it here; its URL policy is tested elsewhere.
      gw = await startTestGateway(
        chromium ? { config: { browser: { cdp_url: chromium.httpEndpoint, allow_private_urls: true } } } : {},
      );
      sid = await gw.createSession();
    });
    after(async () => {
      await gw?.close();
      chromium?.kill();
      await site?.close();
    });

    it('refuses a page the location, notifications, the camera and the microphone', async () => {
      await ok('browser_navigate', { url: site.url('/tasks/permissions') });
      const text = await waitFor(
        async () => {
          const shown = (await ok('browser_snapshot', { full: true })).snapshot ?? '';
          return shown.includes('states:') && shown.includes('location: refused') ? shown : null;
        },
        { what: 'the page to report its permissions' },
      );
      assert.ok(text.includes(DENIED), text);
      assert.match(text, /location: refused code 1/);
    });
  });
}
