import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { resolveCdpEndpoint } from '../../src/gateway/backends/cdp/cdp-url-backend.js';
import { startTestGateway } from '../gateway/fixtures/gateway.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { startInspectProxy, type InspectProxy } from './fixtures/inspect-proxy.js';

describe('a CDP URL whose /json/version answers 404 (a browser shared from chrome://inspect)', () => {
  let chromium: LocalChromium;
  let proxy: InspectProxy;
  before(async () => {
    chromium = await launchChromium();
    proxy = await startInspectProxy(chromium.wsEndpoint);
  });
  after(async () => {
    await proxy?.close();
    chromium?.kill();
  });

  it('drives the browser through the WebSocket URL as given', async () => {
    const gw = await startTestGateway({ config: {}, env: { BROWSER_CDP_URL: proxy.url } });
    try {
      const sid = await gw.createSession();
      const nav = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_navigate`, {
        body: { url: 'about:blank' },
      });
      assert.equal(nav.status, 200, JSON.stringify(nav.body));
      assert.ok(proxy.upgrades() >= 1);
    } finally {
      await gw.close();
    }
  });

  it('says to give the ws:// URL when an http:// one has no /json/version', async () => {
    await assert.rejects(resolveCdpEndpoint(proxy.url.replace(/^ws/, 'http')), {
      code: 'backend_unavailable',
      message: /give its ws:\/\/ URL instead/,
    });
  });
});
