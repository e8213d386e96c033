/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- tests read JSON bodies */
/**
 * The approval classes of the user's tab that approvals.e2e.test.ts does not drive, through the real
 * extension in a real Chromium and decided in its popup as a person would: a click on a `download`
 * link, a click on a file input (`upload`: it opens the file chooser), and the first vault secret typed
 * on an origin (`secret_first_use`). Each is held before the decision (the page sees no event, the field
 * stays empty), happens exactly once after Approve, and never after Deny.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Vault } from '../../src/gateway/secrets/index.js';
import { ENABLED_CONFIG } from '../gateway/fixtures/gateway.js';
import { SHOP_HOST, startApprovalSites, type ApprovalSites } from '../security/fixtures/approval-site.js';
import { startLoginSite, type LoginSite } from '../security/fixtures/login-site.js';
import { codeOf, sharedTabCalls } from './fixtures/shared-tab-calls.js';
import { inTab, shareBlankTab, startStage, type Stage } from './fixtures/paired-setup.js';
import { decideInPopup, openPopup, type PopupPage } from './fixtures/popup-page.js';

const PASSWORD = `pw-${randomBytes(6).toString('hex')}`;

describe("approval classes on the user's tab: download, upload, secret_first_use", () => {
  let sites: ApprovalSites;
  let login: LoginSite;
  let stage: Stage;
  let sid: string;
  let target: string;
  let popup: PopupPage;

  const { call, ok, refOf, asOwner, pending, pendingApprovals } = sharedTabCalls(
    () => stage,
    () => sid,
  );
  /**
   * The page notes a click as it is dispatched; read in the page itself, since while a call waits for
   * the person the session's other calls wait behind it.
   */
  const events = async (what: string) =>
    (await inTab<string>(stage, target, 'document.body.innerText')).split(`(event: ${what})`).length - 1;

  /** The call waits for the person; what it would do is counted before and after the decision. */
  const decided = async (
    act: () => Promise<[string, Record<string, unknown>]>,
    effect: () => Promise<number>,
    decision: 'approve' | 'deny',
  ) => {
    const [tool, args] = await act();
    const running = call(tool, args);
    const asked = await pending();
    const whilePending = await effect();
    await decideInPopup(popup, asked.approval_id, decision);
    const result = await running;
    if (decision === 'approve') assert.equal(result.status, 200, JSON.stringify(result.body));
    else assert.equal(codeOf(result), 'approval_denied', JSON.stringify(result.body));
    const record = (await asOwner('GET', `/v1/approvals/${asked.approval_id}`)).body.approval;
    assert.equal(record.channel, 'extension');
    return { classes: asked.classes, whilePending, after: await effect(), status: record.status as string };
  };

  before(async () => {
    sites = await startApprovalSites();
    login = await startLoginSite();
    stage = await startStage({
      config: {
        browser: { extension_control: { ...ENABLED_CONFIG.browser.extension_control, command_timeout: 20 } },
        safety: {
          sites: { allow: [SHOP_HOST, '127.0.0.1'] },
          approval_timeout_s: 15,
          approvals: { user_tab: 'all' },
        },
      },
      browserArgs: [sites.resolverRule],
    });
    new Vault(stage.gw.home).add(
      { name: 'site-pass', origin: login.origin, field: 'password', value: PASSWORD },
      new Date(),
    );
    const shared = await shareBlankTab(stage, 'classes');
    sid = shared.sessionId;
    target = shared.targetId;
    popup = await openPopup(stage.browser, shared.tabId);
  });
  after(async () => {
    await popup?.close();
    await stage?.close();
    await sites?.close();
    await login?.close();
  });

  for (const [name, path, label, event, cls] of [
    ['a click on a download link', '/download', 'link "Get the file"', 'download', 'download'],
    ['a click on a file input', '/upload', 'button "Document"', 'chooser', 'upload'],
  ] as const) {
    it(`holds ${name} until approved in the popup, then does it once`, async () => {
      for (const decision of ['deny', 'approve'] as const) {
        await ok('browser_navigate', { url: sites.shopUrl(path) });
        const run = await decided(
          async () => ['browser_click', { ref: await refOf(label) }],
          () => events(event),
          decision,
        );
        assert.ok(run.classes.includes(cls), JSON.stringify(run.classes));
        assert.equal(run.whilePending, 0, `the page saw nothing before the ${decision}`);
        assert.equal(run.after, decision === 'approve' ? 1 : 0, `after the ${decision}`);
        assert.equal(run.status, decision === 'approve' ? 'used' : 'denied');
      }
    });
  }

  it('holds the first vault secret typed on an origin until approved, then asks no more there', async () => {
    // Typed text is in the field once the typing call has answered (or, while it waits, if typed early).
    const filled = async () =>
      (await inTab<boolean>(stage, target, `document.querySelector('input[type=password]').value !== ''`))
        ? 1
        : 0;
    const typeSecret = async (): Promise<[string, Record<string, unknown>]> => [
      'browser_type',
      { ref: await refOf('textbox "Password"'), secret: 'site-pass' },
    ];
    for (const decision of ['deny', 'approve'] as const) {
      await ok('browser_navigate', { url: `${login.origin}/login` });
      const run = await decided(typeSecret, filled, decision);
      assert.deepEqual(run.classes, ['secret_first_use']);
      assert.equal(run.whilePending, 0, `nothing typed before the ${decision}`);
      assert.equal(run.after, decision === 'approve' ? 1 : 0, `after the ${decision}`);
    }
    // Approved once for this origin in this session: the next fill there is not asked for.
    await ok('browser_navigate', { url: `${login.origin}/login` });
    const again = await call(...(await typeSecret()));
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(await pendingApprovals(), []);
    assert.equal(await filled(), 1);
    assert.equal(login.posted.length, 0, 'typing submitted nothing');
  });
});
