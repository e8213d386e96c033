/**
 * The user's own tab never reaches a cloud metadata endpoint while it is shared, whatever the page
 * does: the real extension in a real Chromium, paired with a real gateway, shares a tab on a page that
 * links, redirects, frames, fetches and loads images from the metadata address and the metadata name,
 * both mapped inside the browser to a server that records what reaches it. The extension's rule
 * follows the share: once it ends, the user's own browsing is theirs again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { HttpResult } from '../gateway/fixtures/gateway.js';
import { startNetworkSites, type NetworkSites } from '../security/fixtures/network-sites.js';
import { sharedTabCalls } from './fixtures/shared-tab-calls.js';
import { callTool, shareTarget, startStage, type Stage } from './fixtures/paired-setup.js';

const METADATA_PATHS = /latest\/meta-data|computeMetadata/;

const errorOf = (result: HttpResult) =>
  (result.body as { error?: { code?: string; controller_code?: string } }).error;

describe('a shared tab never reaches cloud metadata', () => {
  let sites: NetworkSites;
  let stage: Stage;
  let sessionId: string;

  const { ok, refOf } = sharedTabCalls(
    () => stage,
    () => sessionId,
  );
  const metadataRequests = () => sites.privateRequests.filter((request) => METADATA_PATHS.test(request));

  before(async () => {
    sites = await startNetworkSites();
    stage = await startStage({
      config: { browser: { extension_control: { enabled: true, command_timeout: 30 } } },
      browserArgs: [sites.metadataResolverRule],
    });
    const { targetId } = await stage.browser.cdp.openPage(sites.publicUrl('/links'));
    ({ sessionId } = await shareTarget(stage, targetId, 'metadata'));
  });
  after(async () => {
    await stage?.close();
    await sites?.close();
  });

  it('refuses links and redirects to the metadata address and name', async () => {
    for (const label of ['link "Metadata address"', 'link "Metadata name"', 'link "Redirect to metadata"']) {
      await ok('browser_navigate', { url: sites.publicUrl('/links') });
      await ok('browser_click', { ref: await refOf(label) });
    }
    const redirected = await callTool(stage, sessionId, 'browser_navigate', {
      url: sites.publicUrl(
        `/redirect?to=${encodeURIComponent(sites.metadataUrl('metadata.google.internal', '/computeMetadata/v1/'))}`,
      ),
    });
    assert.equal(
      errorOf(redirected)?.controller_code,
      'metadata_url_blocked',
      JSON.stringify(redirected.body),
    );
    assert.deepEqual(metadataRequests(), []);
    const audit = await stage.gw.request('GET', `/v1/audit?session=${sessionId}`);
    const [row] = (
      audit.body as { entries: { outcome: string; context: { rule?: string } | null }[] }
    ).entries.filter((entry) => entry.outcome === 'controller_rejected');
    assert.equal(row?.context?.rule, 'metadata', JSON.stringify(row));
  });

  it('refuses page scripts, workers, frames and images that reach for metadata', async () => {
    await ok('browser_navigate', { url: sites.publicUrl('/scripts') });
    await sites.settled('scripts');
    await ok('browser_navigate', { url: sites.publicUrl('/embeds') });
    await sites.settled('embeds');
    assert.deepEqual(metadataRequests(), []);
  });

  it('lifts the rule when the share ends', async () => {
    await stage.browser.ask({ type: 'stop' });
    const { sessionId: page } = await stage.browser.cdp.openPage(sites.publicUrl('/'));
    const fetched = await stage.browser.cdp.evaluate(
      page,
      `fetch(${JSON.stringify(sites.metadataUrl('metadata.google.internal', '/computeMetadata/v1/user'))}).then(() => 'ok', () => 'failed')`,
    );
    assert.deepEqual(metadataRequests(), ['GET /computeMetadata/v1/user'], String(fetched));
  });
});
