/**
 * Once the real extension has filled a vault password on the user's tab, no request of that tab carries
 * it off, at the network layer: the page's image, fetches, iframe navigation and popup (the value in
 * the URL, raw, base64, hex or percent-encoded), its POST bodies to another origin, and the same from a
 * cross-site iframe (its own process) and a dedicated worker the page starts. The one POST of the value
 * to the secret's own origin, where a sign-in form sends it, arrives. The recording server sees the rest
 * of the page's requests, and the page reports when every attempt has settled.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Vault } from '../../src/gateway/secrets/index.js';
import { assertOwnPostArrived, leakedRequests, reportedAttempts } from '../security/fixtures/leak-checks.js';
import { startLeakSite, type LeakSite } from '../security/fixtures/leak-site.js';
import { sharedTabCalls } from './fixtures/shared-tab-calls.js';
import {
  LOOPBACK_TEST_SITES,
  shareTarget,
  startStage,
  waitFor,
  type Stage,
} from './fixtures/paired-setup.js';

const PASSWORD = `Leak pw/${randomBytes(6).toString('hex')}+?&`;

describe("the user's tab's requests never carry a filled secret off", () => {
  let site: LeakSite;
  let stage: Stage;
  let sessionId: string;
  let settledSoFar: () => Promise<unknown>;
  const { ok, refOf } = sharedTabCalls(
    () => stage,
    () => sessionId,
  );

  before(async () => {
    site = await startLeakSite();
    stage = await startStage({
      config: {
        browser: { extension_control: { enabled: true, command_timeout: 30 } },
        safety: { ...LOOPBACK_TEST_SITES, approvals: { user_tab: 'none' } },
      },
    });
    new Vault(stage.gw.home).add(
      { name: 'leak-pass', origin: site.origin, field: 'password', value: PASSWORD },
      new Date(),
    );
    const { targetId, sessionId: cdpSession } = await stage.browser.cdp.openPage(`${site.origin}/leak`);
    settledSoFar = () => stage.browser.cdp.evaluate(cdpSession, 'JSON.stringify(window.settled)');
    ({ sessionId } = await shareTarget(stage, targetId, 'vault-network'));
  });
  after(async () => {
    await stage?.close();
    await site?.close();
  });

  it('fails them from the page, its cross-site iframe and its worker; the POST to its own origin goes', async () => {
    await ok('browser_navigate', { url: `${site.origin}/leak` });
    await waitFor('the cross-site iframe to run in its own process', async () =>
      (await stage.browser.cdp.targets()).some(
        (target) => target.type === 'iframe' && target.url.startsWith(`${site.other}/relay`),
      ),
    );
    const typed = await ok('browser_type', { ref: await refOf('textbox "Password"'), secret: 'leak-pass' });
    await waitFor('the page to report every attempt settled', async () => site.done()).catch(
      async (error) => {
        const settled = String(await settledSoFar().catch(() => '?'));
        throw new Error(`${String(error)}; settled ${settled}; requests:\n${site.requests.join('\n')}`);
      },
    );
    assert.deepEqual(leakedRequests(site, PASSWORD), [], site.requests.join('\n'));
    assertOwnPostArrived(site, PASSWORD);
    const attempts = reportedAttempts(site);
    assert.equal(attempts[4], 'left', `the popup opened and settled: ${JSON.stringify(attempts)}`);
    // The iframe and the worker did try: each reported its requests failed.
    assert.deepEqual(attempts.at(-2), ['failed', 'failed', 'failed'], JSON.stringify(attempts));
    assert.deepEqual(attempts.at(-1), ['failed', 'failed'], JSON.stringify(attempts));
    const notices = [...(typed.notices ?? []), ...((await ok('browser_snapshot')).notices ?? [])];
    // A URL is refused by the browser's rules before the debugger sees it; a body by the debugger, which says so.
    assert.ok(
      notices.some((notice) =>
        notice.includes('(secret_in_body): its body carried the value of the vault secret leak-pass'),
      ),
      JSON.stringify(notices),
    );
    assert.ok(!JSON.stringify(notices).includes(PASSWORD));
  });
});
