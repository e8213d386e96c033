/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- tests read JSON bodies */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { makeHome, startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { startFakeVendor, type FakeVendor } from './fixtures/fake-vendor.js';
import { installThirdPartyPlugin, PROVIDER_NAME } from './fixtures/third-party-plugin.js';

const KEY = 'acme-live-key-0123456789';

describe('a third-party provider plugin installed as an npm package in the home folder', () => {
  let chromium: LocalChromium;
  let vendor: FakeVendor;
  const open: TestGateway[] = [];
  before(async () => {
    chromium = await launchChromium();
    vendor = await startFakeVendor(() => ({ status: 200, body: {} }));
  });
  after(async () => {
    for (const gw of open) {
      await gw.close();
      fs.rmSync(gw.home, { recursive: true, force: true, maxRetries: 10 });
    }
    await vendor.close();
    chromium?.kill();
  });

  /** A gateway whose browser is the plugin's, with `section` as its `browser.acme_cloud`. */
  async function gatewayWith(
    section: Record<string, unknown>,
    browser: Record<string, unknown> = {},
    config: Record<string, unknown> = {},
  ) {
    const home = makeHome();
    installThirdPartyPlugin(home);
    const gw = await startTestGateway({
      home,
      env: { ACME_CLOUD_KEY: KEY },
      config: {
        ...config,
        browser: {
          cloud_provider: PROVIDER_NAME,
          acme_cloud: { cdp_url: chromium.wsEndpoint, vendor: vendor.url, ...section },
          ...browser,
        },
      },
    });
    open.push(gw);
    return gw;
  }

  async function navigate(gw: TestGateway) {
    const sid = await gw.createSession();
    const result = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_navigate`, {
      body: { url: 'about:blank' },
    });
    return { sid, result };
  }

  it('receives its own config section and serves sessions with the browser it names', async () => {
    const gw = await gatewayWith({ region: 'ap-south' });
    const { sid, result } = await navigate(gw);
    assert.equal(result.status, 200, JSON.stringify(result.body));
    // The region comes from the section; the first navigation says what the provider granted.
    assert.deepEqual(result.body.result.features, { stealth: true, region: 'ap-south' });
    assert.ok(
      !gw.logLines.some((line) => line.includes('unknown config key') && line.includes('acme_cloud')),
    );
    const second = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_navigate`, {
      body: { url: 'about:blank' },
    });
    assert.equal(second.body.result.features, undefined);
  });

  it("shows the session's backend, provider, features and live view in GET /v1/sessions/{id}", async () => {
    const gw = await gatewayWith({});
    const { sid } = await navigate(gw);
    const session = await gw.request('GET', `/v1/sessions/${sid}`);
    assert.equal(session.status, 200);
    assert.deepEqual(session.body.browser, {
      backend: PROVIDER_NAME,
      provider: PROVIDER_NAME,
      features: { stealth: true, region: 'eu-west' },
      live_url: `https://live.acme.test/${sid}`,
      external_call_id: `call-${sid}`,
    });
  });

  it("records the provider's external_call_id in the audit row of the call that opened its session", async () => {
    // Calls to a provider are audited only with `audit.all_backends`.
    const gw = await gatewayWith({}, {}, { audit: { all_backends: true } });
    const { sid, result } = await navigate(gw);
    assert.equal(result.status, 200, JSON.stringify(result.body));
    await gw.request('POST', `/v1/sessions/${sid}/tools/browser_navigate`, { body: { url: 'about:blank' } });
    const audit = await gw.request('GET', `/v1/audit?session=${sid}`);
    const rows = audit.body.entries as { action: string; backend: string; context: unknown }[];
    assert.deepEqual(
      rows.map((row) => [row.action, row.backend, row.context]),
      [
        ['browser_navigate', PROVIDER_NAME, { external_call_id: `call-${sid}` }],
        ['browser_navigate', PROVIDER_NAME, null],
      ],
    );
  });

  it('surfaces a thrown error to the agent as provider_error with its message, the key redacted', async () => {
    const gw = await gatewayWith({ mode: 'throw' });
    const { result } = await navigate(gw);
    assert.equal(result.status, 502);
    assert.equal(result.body.error.code, 'provider_error');
    assert.match(result.body.error.message, /acme-cloud-plugin/);
    assert.match(result.body.error.message, /Acme refused: quota exceeded for key/);
    assert.ok(!JSON.stringify(result.body).includes(KEY));
    assert.ok(!gw.logLines.some((line) => line.includes(KEY)));
  });

  it('reports missing credentials as provider_not_configured when the plugin marks them so', async () => {
    const gw = await gatewayWith({ mode: 'not-configured' });
    const { result } = await navigate(gw);
    assert.equal(result.status, 503);
    assert.equal(result.body.error.code, 'provider_not_configured');
    assert.match(result.body.error.message, /ACME_CLOUD_KEY is not set/);
  });

  it('names each broken field of the session metadata it returns', async () => {
    const gw = await gatewayWith({ mode: 'bad-metadata' });
    const { result } = await navigate(gw);
    assert.equal(result.status, 502);
    assert.equal(result.body.error.code, 'provider_error');
    assert.match(result.body.error.message, /cdp_url: missing/);
    assert.match(result.body.error.message, /features: expected an object/);
  });

  it('refuses sessions while its config section fails its own schema, naming the key', async () => {
    const gw = await gatewayWith({ mode: 'explode' });
    const { result } = await navigate(gw);
    assert.equal(result.status, 503);
    assert.equal(result.body.error.code, 'provider_not_configured');
    assert.match(result.body.error.message, /browser\.acme_cloud\.mode/);
  });

  it('cuts a slow createSession off at browser.provider_timeout_s and releases what it creates late', async () => {
    const gw = await gatewayWith({ mode: 'late', late_ms: 1500 }, { provider_timeout_s: 0.2 });
    const { sid, result } = await navigate(gw);
    assert.equal(result.status, 504);
    assert.equal(result.body.error.code, 'provider_timeout');
    assert.match(result.body.error.message, /provider_timeout_s/);
    const released = await vendor.waitForRequest((r) => r.path === `/emergency/acme-${sid}`);
    assert.equal(released.method, 'POST');
  });

  it('closes a session although the plugin throws in closeSession', async () => {
    const gw = await gatewayWith({});
    const { sid, result } = await navigate(gw);
    assert.equal(result.status, 200, JSON.stringify(result.body));
    const closed = await gw.request('DELETE', `/v1/sessions/${sid}`);
    assert.equal(closed.status, 200);
    assert.ok(vendor.requests.some((r) => r.path === `/closed/acme-${sid}`));
    assert.equal((await gw.request('GET', `/v1/sessions/${sid}`)).status, 404);
  });
});
