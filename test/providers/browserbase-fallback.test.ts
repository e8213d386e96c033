import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { BrowserbaseProvider } from '../../src/providers/bundled/index.js';
import { providerContext } from './fixtures/context.js';
import { startFakeVendor, type FakeVendor } from './fixtures/fake-vendor.js';
import { browserbaseRoutes, type BrowserbaseFakeOptions } from './fixtures/vendors.js';

// The CDP URL is not dialled here: these tests are about which paid features are requested.
const CDP = 'ws://127.0.0.1:9/devtools/browser/fake';

describe('Browserbase paid-feature fallbacks (HTTP 402)', () => {
  const vendors: FakeVendor[] = [];
  after(async () => {
    await Promise.all(vendors.map((vendor) => vendor.close()));
  });
  async function setup(plan: Partial<BrowserbaseFakeOptions>, extraEnv: Record<string, string> = {}) {
    const vendor = await startFakeVendor(
      browserbaseRoutes({ apiKey: 'key-123456', projectId: 'p', cdpUrl: CDP, ...plan }),
    );
    vendors.push(vendor);
    const ctx = providerContext({
      BROWSERBASE_API_KEY: 'key-123456',
      BROWSERBASE_PROJECT_ID: 'p',
      BROWSERBASE_BASE_URL: vendor.url,
      ...extraEnv,
    });
    return { vendor, provider: new BrowserbaseProvider(ctx) };
  }
  const sessionPosts = (vendor: FakeVendor) =>
    vendor.requests.filter((r) => r.path === '/v1/sessions').map((r) => r.body);

  it('retries without keep-alive when keep-alive is not in the plan', async () => {
    const { vendor, provider } = await setup({ allowKeepAlive: false, allowProxies: true });
    const session = await provider.createSession('t');
    assert.deepEqual(sessionPosts(vendor), [
      { projectId: 'p', keepAlive: true, proxies: true },
      { projectId: 'p', proxies: true },
    ]);
    assert.equal(session.features.keep_alive, false);
    assert.equal(session.features.proxies, true);
  });

  it('then retries without proxies when neither is in the plan', async () => {
    const { vendor, provider } = await setup({ allowKeepAlive: false, allowProxies: false });
    const session = await provider.createSession('t');
    assert.deepEqual(sessionPosts(vendor), [
      { projectId: 'p', keepAlive: true, proxies: true },
      { projectId: 'p', proxies: true },
      { projectId: 'p' },
    ]);
    assert.deepEqual(
      { keep_alive: session.features.keep_alive, proxies: session.features.proxies },
      { keep_alive: false, proxies: false },
    );
  });

  it('drops proxies directly when keep-alive is switched off and proxies are denied', async () => {
    const { vendor, provider } = await setup(
      { allowKeepAlive: true, allowProxies: false },
      { BROWSERBASE_KEEP_ALIVE: 'false' },
    );
    await provider.createSession('t');
    assert.deepEqual(sessionPosts(vendor), [{ projectId: 'p', proxies: true }, { projectId: 'p' }]);
  });

  it('remembers denied features so the next session asks only once', async () => {
    const { vendor, provider } = await setup({ allowKeepAlive: false, allowProxies: false });
    await provider.createSession('first');
    const before = sessionPosts(vendor).length;
    const second = await provider.createSession('second');
    assert.deepEqual(sessionPosts(vendor).slice(before), [{ projectId: 'p' }]);
    assert.deepEqual(provider.deniedFeatures().sort(), ['keep_alive', 'proxies']);
    assert.equal(second.features.keep_alive, false);
  });

  it('fails with provider_error when even the plain session is refused', async () => {
    const vendor = await startFakeVendor(() => ({ status: 402, body: { error: 'no credits left' } }));
    vendors.push(vendor);
    const provider = new BrowserbaseProvider(
      providerContext({
        BROWSERBASE_API_KEY: 'key-123456',
        BROWSERBASE_PROJECT_ID: 'p',
        BROWSERBASE_BASE_URL: vendor.url,
      }),
    );
    await assert.rejects(provider.createSession('t'), (error: unknown) => {
      assert.equal((error as { code?: string }).code, 'provider_error');
      assert.match((error as Error).message, /402.*no credits left/);
      return true;
    });
    assert.equal(vendor.requests.length, 3);
    assert.deepEqual(provider.deniedFeatures(), []);
  });
});
