import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { after, before, describe, it } from 'node:test';
import { createCdpUrlBackend } from '../../src/gateway/backends/cdp/index.js';
import { ProviderBackend, installEmergencyCleanup } from '../../src/gateway/backends/providers/index.js';
import { DEFAULT_BROWSER_SETTINGS, type BrowserSettings } from '../../src/gateway/config/browser-settings.js';
import type { ToolCall } from '../../src/gateway/backends/backend.js';
import { BrowserUseProvider } from '../../src/providers/bundled/index.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { providerContext } from './fixtures/context.js';
import { startFakeVendor, type FakeVendor, type RecordedRequest } from './fixtures/fake-vendor.js';
import { browserUseRoutes } from './fixtures/vendors.js';
import { ManualClock } from '../helpers/manual-clock.js';

const KEY = 'bu_test_key_123456';
let chromium: LocalChromium;
let site: TestSite;
let vendor: FakeVendor;
/** What the fake vendor answers as `timeoutAt` for the next browser it creates. */
let nextTimeoutAt = '2099-01-01T00:00:00Z';

before(async () => {
  chromium = await launchChromium();
  site = await startTestSite();
  vendor = await startFakeVendor(
    browserUseRoutes({ apiKey: KEY, cdpUrl: chromium.wsEndpoint, timeoutAt: () => nextTimeoutAt }),
  );
});
after(async () => {
  await vendor.close();
  await site.close();
  chromium.kill();
});

const backends: ProviderBackend[] = [];
after(async () => {
  await Promise.all(backends.map((backend) => backend.close()));
});

function makeBackend(
  overrides: Partial<BrowserSettings> = {},
  env: Record<string, string> = { BROWSER_USE_API_KEY: KEY },
  clock?: ManualClock,
) {
  const ctx = providerContext({ ...env, BROWSER_USE_BASE_URL: `${vendor.url}/api/v3` });
  // The test site is on 127.0.0.1, a private address: allowed here unless a test says otherwise.
  const settings: BrowserSettings = { ...DEFAULT_BROWSER_SETTINGS, allowPrivateUrls: true, ...overrides };
  const backend = new ProviderBackend({
    provider: new BrowserUseProvider(ctx),
    settings,
    log: ctx.log,
    openCdpUrl: (target) => createCdpUrlBackend(target, settings, ctx.log),
    clock,
  });
  backends.push(backend);
  return backend;
}

let sessionCounter = 0;
const newSessionId = () => `s-${++sessionCounter}`;
const call = (sessionId: string, tool: string, args: Record<string, unknown> = {}) =>
  ({ sessionId, tool, args, toolCallId: null }) as unknown as ToolCall;
const creates = () =>
  vendor.requests.filter((r) => r.method === 'POST' && r.path === '/api/v3/browsers').length;
const stopOf = (id: string) => (r: RecordedRequest) =>
  r.method === 'PATCH' && r.path === `/api/v3/browsers/${id}`;

describe('the provider backend', () => {
  it('runs tools on the browser the provider handed back', async () => {
    const backend = makeBackend();
    const id = newSessionId();
    await backend.call(call(id, 'browser_navigate', { url: site.url('/form') }));
    const snapshot = JSON.stringify(await backend.call(call(id, 'browser_snapshot')));
    assert.match(snapshot, /Your name/);
    await backend.closeSession(id);
  });

  it('releases the provider session when the tabgate session closes', async () => {
    const backend = makeBackend();
    const id = newSessionId();
    await backend.call(call(id, 'browser_navigate', { url: 'about:blank' }));
    const [providerSession] = [...(await backend.openSessions()).values()];
    assert.ok(providerSession);
    await backend.closeSession(id);
    assert.deepEqual((await vendor.waitForRequest(stopOf(providerSession.bb_session_id))).body, {
      action: 'stop',
    });
    assert.equal((await backend.openSessions()).size, 0);
  });

  it('replaces a session past its expires_at on the next call, and stops the old one', async () => {
    const backend = makeBackend();
    const id = newSessionId();
    nextTimeoutAt = '2000-01-01T00:00:00Z';
    await backend.call(call(id, 'browser_navigate', { url: 'about:blank' }));
    const old = (await backend.openSessions()).get(id);
    nextTimeoutAt = '2099-01-01T00:00:00Z';
    const before = creates();
    await backend.call(call(id, 'browser_navigate', { url: site.url('/form') }));
    assert.equal(creates(), before + 1);
    assert.ok(old);
    await vendor.waitForRequest(stopOf(old.bb_session_id));
    assert.notEqual((await backend.openSessions()).get(id)?.bb_session_id, old.bb_session_id);
  });

  it('refuses private addresses on the remote browser before creating anything', async () => {
    const backend = makeBackend({ allowPrivateUrls: false });
    const before = creates();
    await assert.rejects(backend.call(call(newSessionId(), 'browser_navigate', { url: site.url('/form') })), {
      code: 'private_url_blocked',
    });
    await assert.rejects(
      backend.call(call(newSessionId(), 'browser_navigate', { url: 'http://169.254.169.254/' })),
      { code: 'metadata_url_blocked' },
    );
    assert.equal(creates(), before);
  });

  it('reports missing credentials as provider_not_configured instead of using another browser', async () => {
    const backend = makeBackend({}, {});
    await assert.rejects(backend.call(call(newSessionId(), 'browser_snapshot')), (error: unknown) => {
      assert.equal((error as { code?: string }).code, 'provider_not_configured');
      assert.match((error as Error).message, /BROWSER_USE_API_KEY/);
      return true;
    });
  });

  it('releases a session left idle past browser.inactivity_timeout', async () => {
    const clock = new ManualClock();
    const idleMs = DEFAULT_BROWSER_SETTINGS.inactivityTimeoutSeconds * 1000;
    const backend = makeBackend({}, undefined, clock);
    const id = newSessionId();
    await backend.call(call(id, 'browser_navigate', { url: 'about:blank' }));
    const session = (await backend.openSessions()).get(id);
    assert.ok(session);
    // Past the timeout by one sweep (a quarter of it, at most 30 s).
    clock.advance(idleMs + idleMs / 4);
    await vendor.waitForRequest(stopOf(session.bb_session_id));
    // The next call gets a fresh browser and is told so, once.
    const notices = async () =>
      ((await backend.call(call(id, 'browser_tabs'))) as { notices?: string[] }).notices ?? [];
    const first = await notices();
    assert.equal(first.length, 1);
    assert.match(first[0] ?? '', /^session_reset: .*idle.*about:blank/);
    assert.deepEqual(await notices(), []);
  });

  it('releases every session on shutdown', async () => {
    const backend = makeBackend();
    const ids = [newSessionId(), newSessionId()];
    for (const id of ids) await backend.call(call(id, 'browser_navigate', { url: 'about:blank' }));
    const sessions = [...(await backend.openSessions()).values()];
    await backend.close();
    for (const session of sessions) await vendor.waitForRequest(stopOf(session.bb_session_id));
    await assert.rejects(backend.call(call(ids[0] ?? '', 'browser_snapshot')), {
      code: 'backend_unavailable',
    });
  });

  it('releases sessions through emergencyCleanup on SIGTERM', async () => {
    const backend = makeBackend();
    const id = newSessionId();
    await backend.call(call(id, 'browser_navigate', { url: 'about:blank' }));
    const session = (await backend.openSessions()).get(id);
    assert.ok(session);
    // A stand-in process: an emitter, with a second SIGTERM listener so the hook leaves exiting alone.
    const fakeProcess = Object.assign(new EventEmitter(), { exit: () => assert.fail('must not exit') });
    fakeProcess.on('SIGTERM', () => {});
    const hooks = installEmergencyCleanup(
      backend,
      providerContext({}).log,
      fakeProcess as unknown as NodeJS.Process,
    );
    fakeProcess.emit('SIGTERM', 'SIGTERM');
    await vendor.waitForRequest(stopOf(session.bb_session_id));
    hooks.dispose();
    assert.equal(fakeProcess.listenerCount('exit'), 0);
  });
});
