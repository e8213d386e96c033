/**
 * The local Chromium may open private addresses (a developer's localhost), but never a cloud metadata
 * endpoint, whatever leads there: a real gateway on its default local browser, a page on a private host
 * that links and redirects to the metadata address and the metadata name, both mapped inside the
 * browser to a server that records what reaches it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type HttpResult, type TestGateway } from '../gateway/fixtures/gateway.js';
import { startNetworkSites, type NetworkSites } from './fixtures/network-sites.js';
import { errorCode, toolSession } from './fixtures/tool-session.js';

const METADATA_PATHS = /latest\/meta-data|computeMetadata/;

describe('the local browser never reaches cloud metadata', () => {
  let sites: NetworkSites;
  let gw: TestGateway;
  let sid: string;

  const call = (tool: string, args: Record<string, unknown> = {}): Promise<HttpResult> =>
    gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args });
  const { ok, refOf } = toolSession(call);

  before(async () => {
    sites = await startNetworkSites();
    gw = await startTestGateway({
      config: { browser: { chromium_args: [sites.metadataResolverRule], command_timeout: 20 } },
    });
    sid = await gw.createSession();
  });
  after(async () => {
    await gw?.close();
    await sites?.close();
  });

  it('still opens private addresses', async () => {
    assert.equal((await ok('browser_navigate', { url: sites.privateUrl('/typed') })).title, 'Private');
    assert.ok(sites.privateRequests.includes('GET /typed'));
  });

  it('refuses a clicked link to the metadata address and to the metadata name', async () => {
    await ok('browser_navigate', { url: sites.publicUrl('/links') });
    for (const label of ['link "Metadata address"', 'link "Metadata name"']) {
      const clicked = await ok('browser_click', { ref: await refOf(label) });
      assert.ok(
        clicked.notices?.some((notice) => /cloud metadata endpoint/.test(notice)),
        JSON.stringify(clicked),
      );
    }
    assert.equal((await ok('browser_snapshot')).title, 'Links');
    assert.deepEqual(
      sites.privateRequests.filter((request) => METADATA_PATHS.test(request)),
      [],
    );
  });

  it("refuses a page's own HTTP redirect to the metadata address with metadata_url_blocked", async () => {
    await ok('browser_navigate', { url: sites.publicUrl('/links') });
    const redirected = await call('browser_navigate', {
      url: sites.publicUrl(
        `/redirect?to=${encodeURIComponent(sites.metadataUrl('169.254.169.254', '/latest/meta-data/iam'))}`,
      ),
    });
    assert.equal(redirected.status, 403, JSON.stringify(redirected.body));
    assert.equal(errorCode(redirected), 'metadata_url_blocked');
    assert.equal((await ok('browser_snapshot')).title, 'Links');
    // A later request of the same browser to the same server: once it is there, a redirect let through
    // would have arrived before it.
    await ok('browser_navigate', { url: sites.privateUrl('/after-redirect') });
    assert.ok(sites.privateRequests.includes('GET /after-redirect'));
    assert.deepEqual(
      sites.privateRequests.filter((request) => METADATA_PATHS.test(request)),
      [],
    );
  });
});
