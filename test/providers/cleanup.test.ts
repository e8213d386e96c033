import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import {
  BrowserUseProvider,
  BrowserbaseProvider,
  FirecrawlProvider,
} from '../../src/providers/bundled/index.js';
import { providerContext } from './fixtures/context.js';
import { startFakeVendor, type FakeVendor, type Route } from './fixtures/fake-vendor.js';

const SECRET = 'sk-live-9f8e7d6c5b4a3210';
// Short, so a hanging vendor costs the test a fraction of a second; the defaults are 10 s and 5 s.
const TIMEOUTS = { close: 300, emergency: 300 };

const vendors: FakeVendor[] = [];
after(async () => {
  await Promise.all(vendors.map((vendor) => vendor.close()));
});

async function providersAgainst(route: Route) {
  const vendor = await startFakeVendor(route);
  vendors.push(vendor);
  const base = {
    BROWSERBASE_BASE_URL: vendor.url,
    BROWSER_USE_BASE_URL: vendor.url,
    FIRECRAWL_API_URL: vendor.url,
  };
  const ctx = providerContext({
    ...base,
    BROWSERBASE_API_KEY: SECRET,
    BROWSERBASE_PROJECT_ID: 'proj',
    BROWSER_USE_API_KEY: SECRET,
    FIRECRAWL_API_KEY: SECRET,
  });
  return {
    ctx,
    providers: [
      new BrowserbaseProvider(ctx, TIMEOUTS),
      new BrowserUseProvider(ctx, TIMEOUTS),
      new FirecrawlProvider(ctx, TIMEOUTS),
    ],
  };
}

describe('closing provider sessions never throws', () => {
  it('returns false when the vendor answers 500, and logs no secret', async () => {
    const { ctx, providers } = await providersAgainst(() => ({
      status: 500,
      body: { error: `boom for key ${SECRET}` },
    }));
    for (const provider of providers) {
      assert.equal(await provider.closeSession('s-1'), false, provider.name);
      assert.equal(await provider.emergencyCleanup('s-1'), false, provider.name);
    }
    assert.ok(ctx.log.lines.length >= 6);
    assert.ok(ctx.log.lines.every((line) => !line.includes(SECRET)));
  });

  it('returns false within its timeout when the vendor never answers', async () => {
    const { providers } = await providersAgainst(() => 'hang');
    const results = await Promise.all(
      providers.flatMap((p) => [p.closeSession('s'), p.emergencyCleanup('s')]),
    );
    assert.deepEqual(results, [false, false, false, false, false, false]);
  });

  it('returns false when the vendor cannot be reached', async () => {
    const ctx = providerContext({ BROWSER_USE_API_KEY: SECRET, BROWSER_USE_BASE_URL: 'http://127.0.0.1:9' });
    assert.equal(await new BrowserUseProvider(ctx, TIMEOUTS).closeSession('s'), false);
  });

  it('returns false when credentials disappeared since the session was made', async () => {
    const ctx = providerContext({});
    assert.equal(await new FirecrawlProvider(ctx, TIMEOUTS).emergencyCleanup('s'), false);
  });
});

describe('provider errors keep secrets out', () => {
  it('redacts the key and token-like strings from the vendor body', async () => {
    const { providers } = await providersAgainst(() => ({
      status: 403,
      body: {
        error: `key ${SECRET} rejected`,
        echo: { 'X-BB-API-Key': 'other-secret-value', authorization: 'Bearer abcdef0123456789' },
        trace: 'a'.repeat(40),
      },
    }));
    for (const provider of providers) {
      await assert.rejects(provider.createSession('t'), (error: unknown) => {
        const message = (error as Error).message;
        assert.equal((error as { code?: string }).code, 'provider_error');
        assert.match(message, /HTTP 403/);
        for (const secret of [SECRET, 'other-secret-value', 'abcdef0123456789', 'a'.repeat(40)]) {
          assert.ok(!message.includes(secret), `${provider.name} leaked ${secret}: ${message}`);
        }
        return true;
      });
    }
  });

  it('reports an unreachable vendor as provider_error with status 0', async () => {
    const ctx = providerContext({ FIRECRAWL_API_KEY: SECRET, FIRECRAWL_API_URL: 'http://127.0.0.1:9' });
    await assert.rejects(new FirecrawlProvider(ctx).createSession('t'), (error: unknown) => {
      assert.equal((error as { code?: string }).code, 'provider_error');
      assert.equal((error as { details?: { status?: number } }).details?.status, 0);
      assert.match((error as Error).message, /Firecrawl API connection failed/);
      return true;
    });
  });
});
