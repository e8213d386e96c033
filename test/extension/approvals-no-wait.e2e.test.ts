/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * `wait: false` on the user's own tab (docs/safety.md "How the agent waits"), with the real extension in
 * a real Chromium: an action that needs approval answers at once with `approval_required` and its
 * `approval_id`, nothing done; the person decides in the popup meanwhile; `browser_approval_status`
 * follows it; the same call again uses the approval, once; a denied one is never done.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ENABLED_CONFIG } from '../gateway/fixtures/gateway.js';
import { SHOP_HOST, startApprovalSites, type ApprovalSites } from '../security/fixtures/approval-site.js';
import { sharedTabCalls } from './fixtures/shared-tab-calls.js';
import { shareBlankTab, startStage, waitFor, type Stage } from './fixtures/paired-setup.js';
import { decideInPopup, openPopup, type PopupPage } from './fixtures/popup-page.js';

describe("wait: false on the user's tab (the extension)", () => {
  let sites: ApprovalSites;
  let stage: Stage;
  let sid: string;
  let popup: PopupPage;

  const { call, ok, refOf } = sharedTabCalls(
    () => stage,
    () => sid,
  );
  const approvalStatus = async (id: string) => {
    const answer = await call('browser_approval_status', { approval_id: id });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.result.status as string;
  };
  /** Clicks Save without waiting: the answer must be approval_required, with nothing done. */
  const saveWithoutWaiting = async (): Promise<string> => {
    const answer = await call('browser_click', { ref: await refOf('button "Save"'), wait: false });
    assert.equal(answer.status, 409, JSON.stringify(answer.body));
    assert.equal(answer.body.error.code, 'approval_required');
    const id = answer.body.error.approval_id as string;
    assert.match(id, /\S/);
    return id;
  };

  before(async () => {
    sites = await startApprovalSites();
    stage = await startStage({
      config: {
        browser: { extension_control: { ...ENABLED_CONFIG.browser.extension_control } },
        safety: { sites: { allow: [SHOP_HOST] }, approval_timeout_s: 30, approvals: { user_tab: 'all' } },
      },
      browserArgs: [sites.resolverRule],
    });
    const shared = await shareBlankTab(stage, 'no wait');
    sid = shared.sessionId;
    popup = await openPopup(stage.browser, shared.tabId);
  });
  after(async () => {
    await popup?.close();
    await stage?.close();
    await sites?.close();
  });

  it('lists browser_approval_status for the shared tab', async () => {
    const tools = await stage.gw.request('GET', `/v1/tools?session=${sid}`);
    const names = (tools.body.tools as { name: string }[]).map((tool) => tool.name);
    assert.ok(names.includes('browser_approval_status'), names.join(' '));
  });

  it('answers approval_required at once, and the same call after the Approve in the popup does it once', async () => {
    await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
    sites.requests.length = 0;
    const id = await saveWithoutWaiting();
    assert.equal(await approvalStatus(id), 'pending');
    // Asked again before the person decided: the same approval, still nothing done.
    assert.equal(await saveWithoutWaiting(), id);
    await decideInPopup(popup, id, 'approve');
    await waitFor('the approval to be approved', async () => (await approvalStatus(id)) === 'approved');
    assert.equal(sites.hits('/save'), 0, 'nothing was sent before the same call came again');

    const done = await call('browser_click', { ref: await refOf('button "Save"'), wait: false });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    await waitFor('the save to arrive', async () => sites.hits('/save') === 1);
    assert.equal(await approvalStatus(id), 'used');

    // Used once: the next save asks anew.
    await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
    const next = await saveWithoutWaiting();
    assert.notEqual(next, id);
    assert.equal(sites.hits('/save'), 1);
    await decideInPopup(popup, next, 'deny');
  });

  it('never does an action the person denied, and asks anew when the agent tries again', async () => {
    await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
    sites.requests.length = 0;
    const id = await saveWithoutWaiting();
    await decideInPopup(popup, id, 'deny');
    await waitFor('the approval to be denied', async () => (await approvalStatus(id)) === 'denied');
    const again = await saveWithoutWaiting();
    assert.notEqual(again, id);
    // The page's own server is the witness: a marker request after the attempts arrives, the save not.
    await ok('browser_navigate', { url: sites.shopUrl('/form-post?after') });
    assert.equal(sites.hits('/save'), 0);
    await decideInPopup(popup, again, 'deny');
  });
});
