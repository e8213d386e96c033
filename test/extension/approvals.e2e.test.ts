/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-return, @typescript-eslint/no-unsafe-call -- tests read JSON bodies */
/**
 * Approvals and Stop on the user's own tab, enforced by the real extension in a real Chromium
 * (docs/safety.md "On the user's tab"). The shop and payment servers record every request and their
 * pages note every event in `#log`: each trigger variant is held before the person decides (the server
 * sees no request, the page no event), happens exactly once after Approve is clicked in the popup, and
 * never after Deny or a timeout. The agent's key, the pairing token used from outside the extension, a
 * page's script and a message from another extension document cannot decide. Stop in the popup ends the
 * waiting call, refuses the next ones, takes the debugger off the tab; Resume lets calls run again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EXTENSION_ID } from '../../src/protocol/index.js';
import { ENABLED_CONFIG } from '../gateway/fixtures/gateway.js';
import { timesDone, variants } from '../security/approvals-cases.js';
import {
  DOCS_HOST,
  PAY_HOST,
  SHOP_HOST,
  startApprovalSites,
  type ApprovalSites,
} from '../security/fixtures/approval-site.js';
import { codeOf, sharedTabCalls } from './fixtures/shared-tab-calls.js';
import { shareBlankTab, startStage, waitFor, type Stage } from './fixtures/paired-setup.js';
import { decideInPopup, openPopup, type PopupPage } from './fixtures/popup-page.js';

/**
 * The person's window in these tests. Every decision and Stop made in the popup must land inside it, on
 * a loaded machine too (at 3 s a Stop once arrived after the approval had already expired); only the one
 * timeout case waits it out.
 */
const APPROVAL_TIMEOUT_S = 10;
const EXTENSION_ORIGIN = `chrome-extension://${EXTENSION_ID}`;

interface Row {
  variant: string;
  pending: number;
  denied: number;
  approved: number;
}

describe("approvals on the user's tab (the extension)", () => {
  let sites: ApprovalSites;
  let stage: Stage;
  let sid: string;
  let tabId: number;
  let targetId: string;
  let popup: PopupPage;
  const rows: Row[] = [];

  const { call, ok, refOf, asOwner, pending } = sharedTabCalls(
    () => stage,
    () => sid,
  );
  const approvalPath = (id: string, what: string) =>
    `/v1/browser-control/sessions/${sid}/approvals/${id}/${what}`;
  const statusOf = async (id: string) => (await asOwner('GET', `/v1/approvals/${id}`)).body.approval;
  /** The form on `/form-post` was never submitted, read once the page can tell. */
  const neverSaved = async () =>
    assert.equal(await timesDone(ok, sites, { path: '/save', noted: 'submit' }, { title: 'Profile' }), 0);
  /** As a person: waits for the popup to show the approval, then clicks its button. */
  /** Whether anything (here: only the extension's chrome.debugger) is attached to the shared tab. */
  const debuggerAttached = async () => {
    const { targetInfos } = await stage.browser.cdp.send<{
      targetInfos: { targetId: string; attached: boolean }[];
    }>('Target.getTargets', {});
    return targetInfos.find((t) => t.targetId === targetId)?.attached ?? false;
  };

  before(async () => {
    sites = await startApprovalSites();
    stage = await startStage({
      config: {
        browser: { extension_control: { ...ENABLED_CONFIG.browser.extension_control, command_timeout: 20 } },
        safety: {
          sites: { allow: [SHOP_HOST, PAY_HOST, DOCS_HOST] },
          approval_timeout_s: APPROVAL_TIMEOUT_S,
          approvals: { user_tab: 'all', per_action_origins: [sites.payOrigin] },
        },
      },
      browserArgs: [sites.resolverRule],
    });
    ({ sessionId: sid, tabId, targetId } = await shareBlankTab(stage, 'approvals'));
    popup = await openPopup(stage.browser, tabId);
  });
  after(async () => {
    if (rows.length > 0) {
      const lines = rows.map(
        (row) =>
          `${row.variant.padEnd(58)} ${String(row.pending).padStart(7)} ${String(row.denied).padStart(6)} ${String(row.approved).padStart(8)}`,
      );
      process.stdout.write(
        `\n# side effects per trigger variant (user's tab, decided in the popup): goal 0 0 1\n${'variant'.padEnd(58)} pending denied approved\n${lines.join('\n')}\n`,
      );
    }
    await popup?.close();
    await stage?.close();
    await sites?.close();
  });

  /** One run: the call waits, the person decides in the popup (or nobody does), the effects counted. */
  const runOnce = async (
    variant: ReturnType<typeof variants>[number],
    decision: 'approve' | 'deny' | 'timeout',
  ) => {
    sites.requests.length = 0;
    const { title = '' } = await ok('browser_navigate', { url: variant.page(sites) });
    await variant.prepare?.(ok, refOf);
    const [tool, args] = await variant.act(refOf);
    const running = call(tool, args);
    const asked = await pending();
    // Read as the approval is listed; a request let out before the decision would also be counted
    // after a denial, where the page shows the attempt is over.
    const whilePending = 'path' in variant.effect ? sites.hits(variant.effect.path) : 0;
    if (decision !== 'timeout') await decideInPopup(popup, asked.approval_id, decision);
    const result = await running;
    if (decision === 'approve') assert.equal(result.status, 200, JSON.stringify(result.body));
    else {
      assert.equal(codeOf(result), decision === 'deny' ? 'approval_denied' : 'approval_timeout');
      if (variant.dismissAfter) await ok('browser_dialog', { action: 'dismiss' });
    }
    const record = await statusOf(asked.approval_id);
    if (decision !== 'timeout') assert.equal(record.channel, 'extension');
    const after = await timesDone(ok, sites, variant.effect, decision === 'approve' ? null : { title });
    return { whilePending, after, id: asked.approval_id };
  };

  for (const variant of variants('/unused')) {
    if (variant.localOnly) continue;
    it(`holds ${variant.name} until approved in the popup, then does it once`, async () => {
      const denied = await runOnce(variant, 'deny');
      assert.equal(denied.whilePending, 0, 'nothing reached the server before the decision');
      assert.equal(denied.after, 0, 'nothing happened after the denial');
      const approved = await runOnce(variant, 'approve');
      assert.equal(approved.whilePending, 0, 'nothing reached the server before the approval');
      assert.equal(approved.after, 1, 'it happened exactly once after the approval');
      assert.equal((await statusOf(approved.id)).status, 'used');
      rows.push({
        variant: variant.name,
        pending: denied.whilePending + approved.whilePending,
        denied: denied.after,
        approved: approved.after,
      });
    });
  }

  it('never does a POST form submit when nobody decides within safety.approval_timeout_s', async () => {
    const variant = variants('/unused').find((v) => v.name === 'click submits a POST form');
    assert.ok(variant);
    const timedOut = await runOnce(variant, 'timeout');
    assert.equal(timedOut.whilePending, 0);
    assert.equal(timedOut.after, 0);
  });

  it('shows the origin, the action in words and a crop of the element in the popup', async () => {
    sites.requests.length = 0;
    await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
    const running = call('browser_click', { ref: await refOf('button "Save"') });
    const asked = await pending();
    const text = await popup.waitForText('Your agent asks you to approve');
    assert.match(text, new RegExp(sites.shopOrigin.replace(/[.]/g, '\\.')));
    assert.match(text, /click .*button "Save"/);
    assert.match(text, /form submit/);
    await waitFor('the crop to show', () =>
      popup.visible(`li[data-approval-id="${asked.approval_id}"] img.approval-crop`),
    );
    await decideInPopup(popup, asked.approval_id, 'deny');
    assert.equal(codeOf(await running), 'approval_denied');
    await neverSaved();
  });

  it("refuses a decision by the agent's key, or by the pairing token from outside the extension", async () => {
    await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
    sites.requests.length = 0;
    const running = call('browser_click', { ref: await refOf('button "Save"') });
    const asked = await pending();
    const id = asked.approval_id;
    const byAgent = await stage.gw.request('POST', approvalPath(id, 'approve'), { body: {} });
    assert.equal(byAgent.status, 403);
    assert.equal(byAgent.body.error.code, 'operator_required');
    // The extension's own token, taken out of the browser: no extension Origin, then a forged one
    // without the decision key the gateway gave only to the worker.
    const token = await stage.browser.cdp.evaluate<string>(
      stage.browser.popup,
      `chrome.storage.local.get('pairing').then((v) => v.pairing.token)`,
    );
    const withToken = (extra: Record<string, string> = {}) => ({
      authorization: `Bearer ${token}`,
      ...extra,
    });
    const bare = await stage.gw.request('POST', approvalPath(id, 'approve'), {
      body: {},
      headers: withToken(),
    });
    assert.equal(bare.status, 403);
    const forged = await stage.gw.request('POST', approvalPath(id, 'approve'), {
      body: { decision_key: 'guessed' },
      headers: withToken({ origin: EXTENSION_ORIGIN }),
    });
    assert.equal(forged.status, 403);
    assert.equal(forged.body.error.code, 'operator_required');
    // The owner's route is no way round either: a pairing token decides nothing there.
    const ownerRoute = await stage.gw.request('POST', `/v1/approvals/${id}/approve`, {
      body: {},
      headers: withToken(),
    });
    assert.equal(ownerRoute.status, 403);
    // The listing the popup reads carries no decision key.
    const listed = await stage.gw.request('GET', `/v1/browser-control/sessions/${sid}/approvals`, {
      headers: withToken(),
    });
    assert.equal(listed.status, 200);
    assert.doesNotMatch(JSON.stringify(listed.body), /decision_key/);
    assert.equal((await statusOf(id)).status, 'pending');
    await decideInPopup(popup, id, 'deny');
    assert.equal(codeOf(await running), 'approval_denied');
    await neverSaved();
  });

  it('refuses a decision from a page script, a page-opened popup and a forged runtime message', async () => {
    await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
    sites.requests.length = 0;
    const running = call('browser_click', { ref: await refOf('button "Save"') });
    const asked = await pending();
    const id = asked.approval_id;
    // The shared page itself tries: the gateway's decision route, the extension's messaging, and
    // opening the extension's popup in a window of its own.
    const { sessionId: pageSession } = await stage.browser.cdp.send<{ sessionId: string }>(
      'Target.attachToTarget',
      { targetId, flatten: true },
    );
    try {
      const fromPage = await stage.browser.cdp.evaluate<{ fetch: string; runtime: string; opened: string }>(
        pageSession,
        `(async () => {
          const out = {};
          try {
            const r = await fetch(${JSON.stringify(stage.gw.url + approvalPath(id, 'approve'))}, {
              method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
            out.fetch = String(r.status);
          } catch (e) { out.fetch = 'failed'; }
          try {
            out.runtime = typeof chrome !== 'undefined' && chrome.runtime?.sendMessage
              ? JSON.stringify(await chrome.runtime.sendMessage(${JSON.stringify(EXTENSION_ID)},
                  { type: 'decide-approval', approval_id: ${JSON.stringify(id)}, approve: true }))
              : 'no runtime';
          } catch (e) { out.runtime = 'refused'; }
          const w = window.open(${JSON.stringify(`${EXTENSION_ORIGIN}/popup.html`)});
          // Polled until the window has left its first about:blank (or cannot be read): it has tried.
          for (let i = 0; i < 500; i++) {
            try { if (!w || w.closed || w.location.href !== 'about:blank') break; } catch (e) { break; }
            await new Promise((r) => setTimeout(r, 10));
          }
          try { out.opened = w ? String(w.location.href) : 'blocked'; } catch (e) { out.opened = 'opaque'; }
          try { w?.close(); } catch {}
          return out;
        })()`,
      );
      assert.notEqual(fromPage.fetch, '200', JSON.stringify(fromPage));
      assert.match(fromPage.runtime, /no runtime|refused/, JSON.stringify(fromPage));
    } finally {
      await stage.browser.cdp
        .send('Target.detachFromTarget', { sessionId: pageSession })
        .catch(() => undefined);
    }
    // An extension document that is not the popup (and so not the person's) sends the same message.
    const { sessionId: other } = await stage.browser.cdp.openPage(`${EXTENSION_ORIGIN}/manifest.json`);
    await waitFor('the document to reach the runtime', () =>
      stage.browser.cdp
        .evaluate<boolean>(other, `Boolean(globalThis.chrome?.runtime?.sendMessage)`)
        .catch(() => false),
    );
    const forged = await stage.browser.cdp.evaluate<{ ok: boolean; error?: { code: string } }>(
      other,
      `chrome.runtime.sendMessage({ type: 'decide-approval', approval_id: ${JSON.stringify(id)}, approve: true })`,
    );
    assert.equal(forged.ok, false);
    assert.equal(forged.error?.code, 'forbidden_sender');
    assert.equal((await statusOf(id)).status, 'pending');
    await decideInPopup(popup, id, 'deny');
    assert.equal(codeOf(await running), 'approval_denied');
    await neverSaved();
  });

  it('audits the decision made in the popup: who, through the extension, when', async () => {
    const entries = await waitFor('the decisions in the audit log', async () => {
      const audit = await stage.gw.request('GET', `/v1/audit?session=${sid}&limit=1000`);
      const rows = (audit.body.entries as { action: string; arguments: { channel?: string } }[]).filter(
        (entry) => entry.action === 'approval.approve' || entry.action === 'approval.deny',
      );
      return rows.length > 0 ? rows : null;
    });
    for (const entry of entries) assert.equal(entry.arguments.channel, 'extension', JSON.stringify(entry));
    const record = (await asOwner('GET', '/v1/approvals')).body.approvals.find(
      (a: { session_id: string; status: string }) => a.session_id === sid && a.status === 'used',
    );
    assert.ok(record.decided_at);
    assert.ok(record.decided_by);
  });

  it('Stop in the popup cancels the waiting call, refuses the next, detaches the debugger; Resume restores', async () => {
    await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
    assert.equal(await debuggerAttached(), true);
    sites.requests.length = 0;
    const stopAt = await popup.where('#stop-agent');
    // Whether each decision button was held (aria-disabled) as it was drawn: an approval that arrives as the
    // person reaches for a button cannot take the press meant for another one.
    await popup.evaluate(`(() => {
      globalThis.__heldAtDraw = [];
      new MutationObserver((records) => {
        for (const record of records)
          for (const node of record.addedNodes)
            if (node instanceof HTMLElement)
              for (const button of node.querySelectorAll('button[data-decision]'))
                globalThis.__heldAtDraw.push(button.getAttribute('aria-disabled') === 'true');
      }).observe(document.getElementById('approvals'), { childList: true });
    })()`);
    const running = call('browser_click', { ref: await refOf('button "Save"') });
    const asked = await pending();
    // A person reaching for Stop as the approval arrives: the card drawn meanwhile must not move Stop
    // from under the pointer (it did when the card was drawn above it, and a press landed on the card).
    await waitFor('the popup to show the approval', () =>
      popup.visible(`button[data-approval="${asked.approval_id}"]`),
    );
    assert.deepEqual(await popup.where('#stop-agent'), stopAt);
    const held = await popup.evaluate<boolean[]>('globalThis.__heldAtDraw');
    assert.ok(held.length >= 2 && held.every(Boolean), `held as drawn: ${JSON.stringify(held)}`);
    // …and pressable a moment later (where() waits for an enabled button, as a person would).
    await popup.where(`button[data-approval="${asked.approval_id}"][data-decision="deny"]`);
    await popup.click('#stop-agent');
    const ended = await running;
    assert.notEqual(ended.status, 200, JSON.stringify(ended.body));
    assert.ok(
      ['session_stopped_by_owner', 'cancelled', 'controller_cancelled'].includes(codeOf(ended) ?? ''),
      JSON.stringify(ended.body),
    );
    await waitFor('the debugger to leave the tab', async () => !(await debuggerAttached()), 5_000);
    // Withdrawn: a decision made now runs nothing.
    await waitFor(
      'the approval to be withdrawn',
      async () => (await statusOf(asked.approval_id)).status === 'expired',
    );
    // Fail-closed: refused, never run elsewhere, and no approval is asked for.
    const next = await call('browser_snapshot');
    assert.equal(codeOf(next), 'session_stopped_by_owner', JSON.stringify(next.body));
    const click = await call('browser_navigate', { url: sites.shopUrl('/second') });
    assert.equal(codeOf(click), 'session_stopped_by_owner');
    await popup.waitForText('You stopped the agent');
    assert.equal(await debuggerAttached(), false);

    await popup.click('#resume-agent');
    await waitFor('the session to run again', async () => (await call('browser_snapshot')).status === 200);
    // The tab is still on the form, never submitted, and the refused navigation never left.
    await neverSaved();
    assert.equal(sites.hits('/second'), 0);
    await ok('browser_navigate', { url: sites.shopUrl('/second') });
    assert.equal(sites.hits('/second'), 1);
  });
});
