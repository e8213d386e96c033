/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- tests read JSON bodies */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { makeHome, startTestGateway } from '../gateway/fixtures/gateway.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { startFakeVendor } from './fixtures/fake-vendor.js';
import { browserUseRoutes } from './fixtures/vendors.js';

describe('the gateway picks the browser backend at start', () => {
  let chromium: LocalChromium;
  before(async () => {
    chromium = await launchChromium();
  });
  after(() => chromium?.kill());

  it('auto-detects Browser Use from credentials that tabgate tools stored in the home .env', async () => {
    const vendor = await startFakeVendor(
      browserUseRoutes({
        apiKey: 'bu-secret-key',
        cdpUrl: chromium.wsEndpoint,
        timeoutAt: '2099-01-01T00:00:00Z',
      }),
    );
    const home = makeHome();
    fs.writeFileSync(
      path.join(home, '.env'),
      `BROWSER_USE_API_KEY=bu-secret-key\nBROWSER_USE_BASE_URL=${vendor.url}/api/v3\n`,
      { mode: 0o600 },
    );
    const gw = await startTestGateway({ home, config: {} });
    try {
      const sid = await gw.createSession();
      const nav = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_navigate`, {
        body: { url: 'about:blank' },
      });
      assert.equal(nav.status, 200, JSON.stringify(nav.body));
      assert.ok(vendor.requests.some((r) => r.method === 'POST' && r.path === '/api/v3/browsers'));
      assert.equal((await gw.request('DELETE', `/v1/sessions/${sid}`)).status, 200);
      assert.ok(vendor.requests.some((r) => r.method === 'PATCH'));
    } finally {
      await gw.close();
      await vendor.close();
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
    }
  });

  it('fails with provider_not_configured, never the local browser, when the chosen provider lacks credentials', async () => {
    const gw = await startTestGateway({ config: { browser: { cloud_provider: 'browserbase' } } });
    try {
      const sid = await gw.createSession();
      const nav = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_navigate`, {
        body: { url: 'about:blank' },
      });
      assert.equal(nav.status, 503);
      assert.equal(nav.body.error.code, 'provider_not_configured');
      assert.match(nav.body.error.message, /BROWSERBASE_API_KEY/);
    } finally {
      await gw.close();
    }
  });

  it('drives the browser at BROWSER_CDP_URL as a remote browser, refusing private addresses', async () => {
    const gw = await startTestGateway({ config: {}, env: { BROWSER_CDP_URL: chromium.httpEndpoint } });
    try {
      const sid = await gw.createSession();
      const ok = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_navigate`, {
        body: { url: 'about:blank' },
      });
      assert.equal(ok.status, 200, JSON.stringify(ok.body));
      const blocked = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_navigate`, {
        body: { url: 'http://10.1.2.3/' },
      });
      assert.equal(blocked.body.error?.code, 'private_url_blocked');
    } finally {
      await gw.close();
    }
  });
});
