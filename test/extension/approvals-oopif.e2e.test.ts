/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * An approval holds a request with a body on the user's tab even when a cross-site iframe, in its own
 * process (which the tab's own debugger session does not see), sends it: the real extension intercepts
 * the iframe's session too. A neutral click makes the iframe POST; the approval is asked while the
 * request waits in the browser (the server has not seen it), and after Deny in the popup it never
 * arrives: the page reports it failed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { reportedAttempts } from '../security/fixtures/leak-checks.js';
import { startLeakSite, type LeakSite } from '../security/fixtures/leak-site.js';
import { sharedTabCalls } from './fixtures/shared-tab-calls.js';
import {
  LOOPBACK_TEST_SITES,
  shareBlankTab,
  startStage,
  waitFor,
  type Stage,
} from './fixtures/paired-setup.js';
import { decideInPopup, openPopup, type PopupPage } from './fixtures/popup-page.js';

describe("approvals on the user's tab cover its out-of-process iframes", () => {
  let site: LeakSite;
  let stage: Stage;
  let sid: string;
  let popup: PopupPage;
  const { call, ok, refOf, pending } = sharedTabCalls(
    () => stage,
    () => sid,
  );

  before(async () => {
    site = await startLeakSite();
    stage = await startStage({
      config: {
        browser: { extension_control: { enabled: true, command_timeout: 20 } },
        safety: { ...LOOPBACK_TEST_SITES, approval_timeout_s: 15, approvals: { user_tab: 'all' } },
      },
    });
    const shared = await shareBlankTab(stage, 'approvals-oopif');
    sid = shared.sessionId;
    popup = await openPopup(stage.browser, shared.tabId);
  });
  after(async () => {
    await popup?.close();
    await stage?.close();
    await site?.close();
  });

  it("holds the iframe's POST until the person decides, and it never leaves after Deny", async () => {
    await ok('browser_navigate', { url: `${site.origin}/hold` });
    await waitFor('the cross-site iframe to listen', async () =>
      site.requests.some((request) => request.includes(' /relay-ready ')),
    );
    await waitFor('the iframe to run in its own process', async () =>
      (await stage.browser.cdp.targets()).some(
        (target) => target.type === 'iframe' && target.url.startsWith(`${site.other}/relay-hold`),
      ),
    );
    const running = call('browser_click', { ref: await refOf('button "Ping"') });
    const asked = await pending();
    // Asked because the request is paused in the browser: it has not reached the server.
    assert.ok(!site.requests.some((request) => request.includes(' /held ')), site.requests.join('\n'));
    await decideInPopup(popup, asked.approval_id, 'deny');
    const result = await running;
    assert.equal(result.body.error?.code, 'approval_denied', JSON.stringify(result.body));
    await waitFor('the page to report the POST settled', async () => site.done());
    assert.deepEqual(reportedAttempts(site), ['failed']);
    assert.ok(!site.requests.some((request) => request.includes(' /held ')), site.requests.join('\n'));
  });
});
