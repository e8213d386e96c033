/* eslint-disable @typescript-eslint/no-unsafe-member-access */
/**
 * What happens when the controller loses its worker, its socket or its token. Chromium is self-spawned
 * and nothing attaches to the service worker, so Chrome's own lifetime rules apply: an idle worker is
 * stopped about 30 s after its last event, WebSocket pings do not count, data messages and alarms do.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { callTool, shareNewTab, startStage, status, waitFor, type Stage } from './fixtures/paired-setup.js';

describe('the controller', () => {
  let stage: Stage;
  before(async () => {
    stage = await startStage();
  });
  after(async () => {
    await stage?.close();
  });

  it('comes back on its own after Chrome stops the service worker, without pairing again', async () => {
    const { sessionId } = await shareNewTab(stage, '/form', 'survivor');
    const boots = () =>
      stage.browser.cdp.evaluate<number>(
        stage.browser.popup,
        `chrome.storage.session.get('boot_count').then((v) => v.boot_count ?? 0)`,
      );
    const bootsBefore = await boots();
    await stage.browser.killWorker();
    // The 30 s alarm (or any extension event) revives the worker, which registers again with its token.
    await waitFor('the worker to come back', () => stage.browser.workerAlive(), 45_000);
    const snapshot = await waitFor('the session to be served again', async () => {
      const result = await callTool(stage, sessionId, 'browser_snapshot');
      return result.status === 200 ? result : null;
    });
    assert.ok((await boots()) > bootsBefore, 'a new worker life served it');
    assert.match(snapshot.body.result.snapshot as string, /Your name/);
  });

  it('ends a call whose socket died mid-command by its deadline', async () => {
    const { sessionId } = await shareNewTab(stage, '/form', 'interrupted');
    const slow = callTool(stage, sessionId, 'browser_navigate', { url: stage.site.url('/slow') });
    await waitFor('the command to run', async () => (await status(stage.browser)).running_commands > 0);
    await stage.browser.killWorker();
    const interrupted = await slow;
    // Either the socket died first and the gateway's deadline ended the call, or the dying worker got
    // its failure out first (its debugger detached under the navigation): one typed end, never a hang.
    assert.ok(
      ['controller_timeout', 'controller_rejected'].includes(interrupted.body.error.code as string),
      JSON.stringify(interrupted.body),
    );
  });

  it('serves the same tab again after the worker died while that tab loaded a slow page', async () => {
    const { sessionId, tabId } = await shareNewTab(stage, '/form', 'mid-load');
    const slow = callTool(stage, sessionId, 'browser_navigate', { url: stage.site.url('/slow') });
    await waitFor('the tab to be loading /slow', () =>
      stage.browser.cdp.evaluate<boolean>(
        stage.browser.popup,
        `chrome.tabs.get(${tabId}).then((t) => t.status === 'loading' && /slow$/.test(t.pendingUrl ?? ''))`,
      ),
    );
    await stage.browser.killWorker();
    assert.equal((await slow).body.error.code, 'controller_timeout');
    await waitFor('the worker to come back', () => stage.browser.workerAlive(), 45_000);
    // The tab is still loading /slow (the server holds it for a minute): the new worker life must take
    // it over as it is, not wait for a document that has not committed.
    const served = await waitFor(
      'the same tab to be served again',
      async () => {
        const result = await callTool(stage, sessionId, 'browser_navigate', {
          url: stage.site.url('/page2'),
        });
        return result.status === 200 ? result : null;
      },
      30_000,
    );
    assert.equal(served.body.result.title, 'Page two');
    assert.match((served.body.result.notices as string[]).join(' '), /that load was stopped/);
  });

  it('closes its socket and stops when the user revokes the pairing', async () => {
    const { sessionId } = await shareNewTab(stage, '/form', 'revoked');
    const owner = { headers: { authorization: `Bearer ${stage.gw.operatorKey}` } };
    const grants = await stage.gw.request('GET', '/v1/pairings', owner);
    const live = (grants.body.grants as { grant_id: string; revoked_at: string | null }[]).filter(
      (g) => !g.revoked_at,
    );
    for (const grant of live) await stage.gw.request('DELETE', `/v1/pairings/${grant.grant_id}`, owner);
    const view = await waitFor('the extension to stop', async () => {
      const current = await status(stage.browser);
      return current.connection.state === 'stopped' ? current : null;
    });
    assert.equal(view.connection.error?.code, 'invalid_api_key');
    const lane = stage.gw.gateway.broker.laneState({
      principalId: 'owner',
      profileId: 'default',
      sessionId,
      transportFamily: 'local-api',
    });
    assert.equal(lane.registered, false);
  });
});
