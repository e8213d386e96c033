import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  BrowserUseProvider,
  BrowserbaseProvider,
  FirecrawlProvider,
  RemoteCdpProvider,
} from '../../src/providers/bundled/index.js';
import { ProviderApiError, ProviderNotConfiguredError } from '../../src/providers/index.js';
import { browserVersion } from './fixtures/cdp-probe.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { providerContext } from './fixtures/context.js';
import { startFakeVendor, type FakeVendor } from './fixtures/fake-vendor.js';
import { browserUseRoutes, browserbaseRoutes, firecrawlRoutes } from './fixtures/vendors.js';

let chromium: LocalChromium;
before(async () => {
  chromium = await launchChromium();
});
after(() => chromium.kill());

describe('Browserbase', () => {
  let vendor: FakeVendor;
  const env = () => ({
    BROWSERBASE_API_KEY: 'bb_live_secretkey123456',
    BROWSERBASE_PROJECT_ID: 'proj-1',
    BROWSERBASE_BASE_URL: vendor.url,
  });
  before(async () => {
    vendor = await startFakeVendor(
      browserbaseRoutes({
        apiKey: 'bb_live_secretkey123456',
        projectId: 'proj-1',
        cdpUrl: chromium.wsEndpoint,
        allowKeepAlive: true,
        allowProxies: true,
      }),
    );
  });
  after(() => vendor.close());

  it('creates a session whose CDP URL drives a real browser', async () => {
    const provider = new BrowserbaseProvider(providerContext(env()));
    const session = await provider.createSession('task-1');
    assert.match(session.session_name, /^tabgate_task-1_[0-9a-f]{8}$/);
    assert.match(session.bb_session_id, /^bb-\d+$/);
    assert.equal(session.cdp_url, chromium.wsEndpoint);
    assert.match(await browserVersion(session.cdp_url), /Chrome/);
  });

  it('sends the project, keep-alive and proxies by default, with the key in X-BB-API-Key', async () => {
    const provider = new BrowserbaseProvider(providerContext(env()));
    const session = await provider.createSession('t');
    const request = vendor.requests.at(-1);
    assert.equal(request?.headers['x-bb-api-key'], 'bb_live_secretkey123456');
    assert.deepEqual(request?.body, { projectId: 'proj-1', keepAlive: true, proxies: true });
    assert.deepEqual(session.features, {
      basic_stealth: true,
      proxies: true,
      advanced_stealth: false,
      keep_alive: true,
      custom_timeout: false,
    });
  });

  it('honours the stealth, timeout, keep-alive and proxy variables', async () => {
    const provider = new BrowserbaseProvider(
      providerContext({
        ...env(),
        BROWSERBASE_ADVANCED_STEALTH: ' Yes ',
        BROWSERBASE_SESSION_TIMEOUT: '600',
        BROWSERBASE_KEEP_ALIVE: 'off',
        BROWSERBASE_PROXIES: '0',
      }),
    );
    const session = await provider.createSession('t');
    assert.deepEqual(vendor.requests.at(-1)?.body, {
      projectId: 'proj-1',
      timeout: 600,
      browserSettings: { advancedStealth: true },
    });
    assert.deepEqual(session.features, {
      basic_stealth: true,
      proxies: false,
      advanced_stealth: true,
      keep_alive: false,
      custom_timeout: true,
    });
  });

  it('releases a session with REQUEST_RELEASE', async () => {
    const provider = new BrowserbaseProvider(providerContext(env()));
    const session = await provider.createSession('t');
    assert.equal(await provider.closeSession(session.bb_session_id), true);
    const request = vendor.requests.at(-1);
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, `/v1/sessions/${session.bb_session_id}`);
    assert.deepEqual(request?.body, { projectId: 'proj-1', status: 'REQUEST_RELEASE' });
  });

  it('names both missing variables when only one is set', async () => {
    const provider = new BrowserbaseProvider(providerContext({ BROWSERBASE_API_KEY: 'k' }));
    assert.equal(provider.isAvailable(), false);
    await assert.rejects(provider.createSession('t'), (error: unknown) => {
      assert.ok(error instanceof ProviderNotConfiguredError);
      assert.equal(error.code, 'provider_not_configured');
      assert.deepEqual(error.missingEnv, ['BROWSERBASE_PROJECT_ID']);
      assert.match(error.message, /BROWSERBASE_PROJECT_ID/);
      return true;
    });
  });

  it('turns a rejected key into provider_error without echoing the key', async () => {
    const provider = new BrowserbaseProvider(
      providerContext({ ...env(), BROWSERBASE_API_KEY: 'bb_live_wrongkey987654' }),
    );
    await assert.rejects(provider.createSession('t'), (error: unknown) => {
      assert.ok(error instanceof ProviderApiError);
      assert.equal(error.code, 'provider_error');
      assert.equal(error.providerStatus, 401);
      assert.doesNotMatch(error.message, /wrongkey/);
      return true;
    });
  });
});

describe('Browser Use', () => {
  let vendor: FakeVendor;
  const timeoutAt = '2031-01-01T00:00:00.000Z';
  before(async () => {
    vendor = await startFakeVendor(
      browserUseRoutes({ apiKey: 'bu_key_abcdef123', cdpUrl: chromium.wsEndpoint, timeoutAt }),
    );
  });
  after(() => vendor.close());
  const provider = () =>
    new BrowserUseProvider(
      providerContext({
        BROWSER_USE_API_KEY: 'bu_key_abcdef123',
        BROWSER_USE_BASE_URL: `${vendor.url}/api/v3`,
      }),
    );

  it('creates a browser with POST /browsers and maps liveUrl and timeoutAt', async () => {
    const session = await provider().createSession('task');
    const request = vendor.requests.at(-1);
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, '/api/v3/browsers');
    assert.equal(request?.headers['x-browser-use-api-key'], 'bu_key_abcdef123');
    assert.equal(session.live_url, `https://live.browser-use.test/${session.bb_session_id}`);
    assert.equal(session.expires_at, timeoutAt);
    assert.deepEqual(session.features, { browser_use: true });
    assert.match(await browserVersion(session.cdp_url), /Chrome/);
  });

  it('stops a browser with PATCH {action: "stop"}', async () => {
    const p = provider();
    const session = await p.createSession('task');
    assert.equal(await p.closeSession(session.bb_session_id), true);
    const request = vendor.requests.at(-1);
    assert.equal(request?.method, 'PATCH');
    assert.equal(request?.path, `/api/v3/browsers/${session.bb_session_id}`);
    assert.deepEqual(request?.body, { action: 'stop' });
  });
});

describe('Firecrawl', () => {
  let vendor: FakeVendor;
  before(async () => {
    vendor = await startFakeVendor(
      firecrawlRoutes({ apiKey: 'fc-key-0123456789', cdpUrl: chromium.wsEndpoint }),
    );
  });
  after(() => vendor.close());
  const provider = (extra: Record<string, string> = {}) =>
    new FirecrawlProvider(
      providerContext({ FIRECRAWL_API_KEY: 'fc-key-0123456789', FIRECRAWL_API_URL: vendor.url, ...extra }),
    );

  it('creates a session with a Bearer key and the default ttl of 300', async () => {
    const session = await provider().createSession('t');
    const request = vendor.requests.at(-1);
    assert.equal(request?.path, '/v2/browser');
    assert.equal(request?.headers.authorization, 'Bearer fc-key-0123456789');
    assert.deepEqual(request?.body, { ttl: 300 });
    assert.equal(session.features.firecrawl, true);
    assert.match(await browserVersion(session.cdp_url), /Chrome/);
  });

  it('sends FIRECRAWL_BROWSER_TTL as the ttl', async () => {
    await provider({ FIRECRAWL_BROWSER_TTL: '90' }).createSession('t');
    assert.deepEqual(vendor.requests.at(-1)?.body, { ttl: 90 });
  });

  it('deletes a session with DELETE /v2/browser/{id}', async () => {
    const p = provider();
    const session = await p.createSession('t');
    assert.equal(await p.closeSession(session.bb_session_id), true);
    assert.equal(vendor.requests.at(-1)?.method, 'DELETE');
    assert.equal(vendor.requests.at(-1)?.path, `/v2/browser/${session.bb_session_id}`);
  });
});

describe('remote-cdp', () => {
  it('hands back the configured endpoint, config before env', async () => {
    const provider = new RemoteCdpProvider(
      providerContext(
        { REMOTE_CDP_URL: 'ws://127.0.0.1:1/nowhere' },
        { 'remote-cdp': { url: chromium.httpEndpoint } },
      ),
    );
    const session = await provider.createSession('t');
    assert.equal(session.cdp_url, chromium.httpEndpoint);
    assert.deepEqual(session.features, { remote_cdp: true, shared_browser: true });
  });

  it('is not configured without an endpoint, and refuses a non-CDP scheme without echoing it', async () => {
    assert.equal(new RemoteCdpProvider(providerContext({})).isAvailable(), false);
    await assert.rejects(new RemoteCdpProvider(providerContext({})).createSession('t'), {
      code: 'provider_not_configured',
    });
    const bad = new RemoteCdpProvider(providerContext({ REMOTE_CDP_URL: 'file:///secret-token-here' }));
    await assert.rejects(bad.createSession('t'), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.equal((error as { code?: string }).code, 'provider_not_configured');
      assert.doesNotMatch(error.message, /secret-token-here/);
      return true;
    });
  });
});
