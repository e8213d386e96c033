/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { startFakeVendor, type FakeVendor } from './fixtures/fake-vendor.js';
import { runCli } from './fixtures/terminal.js';
import { browserbaseRoutes } from './fixtures/vendors.js';

describe('the browser behind new sessions follows tabgate tools while the gateway runs', () => {
  let chromium: LocalChromium;
  let vendor: FakeVendor;
  let gw: TestGateway;
  before(async () => {
    chromium = await launchChromium();
    vendor = await startFakeVendor(
      browserbaseRoutes({
        apiKey: 'bb-key-live-1',
        projectId: 'proj-live',
        cdpUrl: chromium.wsEndpoint,
        allowKeepAlive: true,
        allowProxies: true,
      }),
    );
    gw = await startTestGateway({
      config: { browser: { cloud_provider: 'local' }, audit: { all_backends: true } },
    });
  });
  after(async () => {
    await gw?.close();
    await vendor?.close();
    chromium?.kill();
  });

  const navigate = (sid: string, url: string) =>
    gw.request('POST', `/v1/sessions/${sid}/tools/browser_navigate`, { body: { url } });
  const creates = () => vendor.requests.filter((r) => r.method === 'POST' && r.path === '/v1/sessions');

  it('gives the next session the fake Browserbase and lets the open one keep its local browser', async () => {
    const open = await gw.createSession();
    // A private address: only the local Chromium may open it, so this proves which browser serves it.
    const first = await navigate(open, `${gw.url}/v1/tools`);
    assert.equal(first.status, 200, JSON.stringify(first.body));

    const tools = runCli(
      [
        'tools',
        '--provider',
        'browserbase',
        '--set',
        'BROWSERBASE_API_KEY=bb-key-live-1',
        '--set',
        'BROWSERBASE_PROJECT_ID=proj-live',
        '--set',
        `BROWSERBASE_BASE_URL=${vendor.url}`,
      ],
      { TABGATE_HOME: gw.home },
      { tty: false },
    );
    assert.equal(await tools.exit, 0, tools.output());
    assert.match(tools.output(), /new sessions; open sessions keep their browser/);

    const next = await gw.createSession();
    const remote = await navigate(next, 'about:blank');
    assert.equal(remote.status, 200, JSON.stringify(remote.body));
    assert.equal(creates().length, 1);
    const refused = await navigate(next, `${gw.url}/v1/tools`);
    assert.equal(refused.body.error?.code, 'private_url_blocked');

    const again = await navigate(open, `${gw.url}/v1/tools`);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.equal(creates().length, 1);

    // The audit log names the browser that really served each call, not the one selected now.
    const backends = async (sid: string) =>
      ((await gw.request('GET', `/v1/audit?session=${sid}`)).body.entries as { backend: string }[]).map(
        (e) => e.backend,
      );
    assert.deepEqual(await backends(open), ['local', 'local']);
    // The new session's very first call included: it is logged as the browser chosen for it.
    assert.deepEqual(await backends(next), ['browserbase', 'browserbase']);

    // Each session is held to the site mode of its own browser (shown in GET /v1/sessions/{id}).
    const siteBrowser = async (sid: string) =>
      ((await gw.request('GET', `/v1/sessions/${sid}`)).body.sites as { browser: string }).browser;
    assert.equal(await siteBrowser(open), 'local');
    assert.equal(await siteBrowser(next), 'remote');
  });
});
