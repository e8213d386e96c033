/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * Approvals of consequential actions (docs/safety.md "Approvals") on a CDP browser, shared by the
 * local-browser and provider suites: every trigger variant is held before the owner decides (its server
 * sees no request, its page no event), happens exactly once after approval, and never after a denial or
 * a timeout. Prints the measurement table: side effects while pending, after deny, after timeout, after
 * approve, per variant.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { HttpResult, TestGateway } from '../gateway/fixtures/gateway.js';
import { pairedToken, withToken } from '../extension/pairing-helpers.js';
import { waitFor } from '../helpers/wait-for.js';
import { startApprovalSites, type ApprovalSites } from './fixtures/approval-site.js';
import { errorCode, toolSession } from './fixtures/tool-session.js';
import { tempDir } from '../helpers/temp-dir.js';

export const APPROVAL_TIMEOUT_S = 2;

export interface Started {
  gw: TestGateway;
  dispose(): Promise<void>;
}

/** The `safety:` and `browser:` parts the suites run under. */
export function approvalConfig(sites: ApprovalSites, uploadRoot: string) {
  return {
    safety: {
      approval_timeout_s: APPROVAL_TIMEOUT_S,
      approvals: { local: 'all', remote: 'all', per_action_origins: [sites.payOrigin] },
    },
    // Extension control on only so that a pairing token exists to be refused.
    browser: { upload_roots: [uploadRoot], extension_control: { enabled: true } },
  };
}

interface Variant {
  name: string;
  page: (sites: ApprovalSites) => string;
  /** The call that needs approval, given refs by label. */
  act: (refOf: (label: string) => Promise<string>) => Promise<[string, Record<string, unknown>]>;
  /** What the action does: a request its server receives, or an event its page notes in `#log`. */
  effect: PathEffect | { log: string };
  /** An input before the action that needs no approval. */
  prepare?: (ok: Ok, refOf: (label: string) => Promise<string>) => Promise<void>;
  /** The refused action left a dialog open: answered (dismissed) before the page is read. */
  dismissAfter?: boolean;
  localOnly?: boolean;
}

type Ok = ReturnType<typeof toolSession>['ok'];

/**
 * A request the action sends, and how its page shows, once the call has answered, that a refused
 * attempt is over: then no request at the server means none was sent, not one merely slow. `noted`: the
 * event the page notes as the input reaches it, before it requests anything (still on the same page
 * and without it, the page never got the input). `settled`: the events the page notes once the request
 * it sent, held in the browser for the approval, was answered or refused.
 */
export type PathEffect = { path: string } & ({ noted: string } | { settled: string[] });

/** The events the page noted in `#log`, read in a full snapshot, with the page's title. */
async function pageLog(ok: Ok): Promise<{ title: string; log: string }> {
  const read = await ok('browser_snapshot', { full: true });
  return { title: read.title ?? '', log: read.snapshot ?? '' };
}

const noted = (log: string, event: string) => log.split(`(event: ${event})`).length - 1;

/**
 * How often the action happened, read once its call has answered. An event the page notes is there by
 * then (it is noted as the input is dispatched); a request of a refused action is counted once the page
 * shows the attempt is over, on `title`, the page the action was tried on; one of an approved action
 * once it arrived.
 */
export async function timesDone(
  ok: Ok,
  sites: ApprovalSites,
  effect: Variant['effect'],
  refused: { title: string } | null,
): Promise<number> {
  if ('log' in effect) return noted((await pageLog(ok)).log, effect.log);
  if (!refused) {
    await waitFor(() => sites.hits(effect.path) > 0, {
      what: `the approved action to request ${effect.path}`,
    });
    return sites.hits(effect.path);
  }
  if ('settled' in effect) {
    await waitFor(
      async () => {
        const { log } = await pageLog(ok);
        return effect.settled.some((event) => noted(log, event) > 0);
      },
      { what: `the page to note that its request to ${effect.path} was answered or refused` },
    );
    return sites.hits(effect.path);
  }
  const page = await pageLog(ok);
  assert.equal(page.title, refused.title, 'the tab is still on the page the action was tried on');
  assert.equal(noted(page.log, effect.noted), 0, `the page saw no ${effect.noted}`);
  return sites.hits(effect.path);
}

const ref =
  (label: string, tool: string, extra: Record<string, unknown> = {}) =>
  async (refOf: (label: string) => Promise<string>): Promise<[string, Record<string, unknown>]> => [
    tool,
    { ref: await refOf(label), ...extra },
  ];

export function variants(uploadFile: string): Variant[] {
  return [
    {
      name: 'click submits a POST form',
      page: (s) => s.shopUrl('/form-post'),
      act: ref('button "Save"', 'browser_click'),
      effect: { path: '/save', noted: 'submit' },
    },
    {
      name: 'click submits a form to another origin',
      page: (s) => s.shopUrl('/form-other'),
      act: ref('button "Go"', 'browser_click'),
      effect: { path: '/search', noted: 'submit' },
    },
    {
      name: 'click submits a form into another window',
      page: (s) => s.shopUrl('/form-blank'),
      act: ref('button "Open report"', 'browser_click'),
      effect: { path: '/report', noted: 'submit' },
    },
    {
      name: 'Enter typed into a POST form field',
      page: (s) => s.shopUrl('/form-post'),
      act: ref('textbox "Nickname"', 'browser_type', { text: 'y', submit: true }),
      effect: { path: '/save', noted: 'submit' },
    },
    {
      name: 'Enter pressed in a POST form field',
      page: (s) => s.shopUrl('/form-post'),
      prepare: async (ok, refOf) =>
        void (await ok('browser_click', { ref: await refOf('textbox "Nickname"') })),
      act: () => Promise.resolve(['browser_press', { key: 'Enter' }]),
      effect: { path: '/save', noted: 'submit' },
    },
    {
      name: 'click on a button named "Delete account"',
      page: (s) => s.shopUrl('/lexicon'),
      act: ref('button "Delete account"', 'browser_click'),
      effect: { log: 'delete' },
    },
    {
      name: 'click on a link named "Buy now"',
      page: (s) => s.shopUrl('/lexicon'),
      act: ref('link "Buy now"', 'browser_click'),
      effect: { path: '/bought', noted: 'buy' },
    },
    {
      name: 'click on "Jetzt kaufen" (German lexicon, text in a span)',
      page: (s) => s.shopUrl('/lexicon'),
      act: ref('button "Jetzt kaufen"', 'browser_click'),
      effect: { log: 'kaufen' },
    },
    {
      name: 'fetch POST after a neutral click',
      page: (s) => s.shopUrl('/fetch'),
      act: ref('button "Sync notes"', 'browser_click'),
      effect: { path: '/api/sync', settled: ['synced', 'failed'] },
    },
    {
      name: 'XHR PUT from a timer after a neutral click',
      page: (s) => s.shopUrl('/fetch'),
      act: ref('button "Store later"', 'browser_click'),
      effect: { path: '/api/later', settled: ['stored', 'failed'] },
    },
    {
      name: 'click on a download link',
      page: (s) => s.shopUrl('/download'),
      act: ref('link "Get the file"', 'browser_click'),
      effect: { path: '/file.txt', noted: 'download' },
      localOnly: true,
    },
    {
      name: 'file upload',
      page: (s) => s.shopUrl('/upload'),
      act: ref('button "Document"', 'browser_upload', { paths: [uploadFile] }),
      effect: { log: 'files 1' },
      localOnly: true,
    },
    {
      name: 'accepting a confirm dialog',
      page: (s) => s.shopUrl('/confirm'),
      prepare: async (ok, refOf) =>
        void (await ok('browser_click', { ref: await refOf('button "Clear notes"') })),
      act: () => Promise.resolve(['browser_dialog', { action: 'accept' }]),
      effect: { path: '/api/clear', noted: 'confirmed' },
      dismissAfter: true,
    },
    {
      name: 'typing on a per-action origin',
      page: (s) => s.payUrl('/card'),
      act: ref('textbox "Card holder"', 'browser_type', { text: 'Ann' }),
      effect: { log: 'input' },
    },
    {
      name: 'clicking a link on a per-action origin',
      page: (s) => s.payUrl('/card'),
      act: ref('link "Continue"', 'browser_click'),
      effect: { path: '/done', noted: 'link' },
    },
  ];
}

interface Row {
  variant: string;
  pending: number;
  denied: number;
  timedOut: number | null;
  approved: number;
}

export function approvalCases(
  name: string,
  browser: 'local' | 'remote',
  start: (sites: ApprovalSites, uploadRoot: string) => Promise<Started>,
): void {
  describe(name, () => {
    let sites: ApprovalSites;
    let started: Started | undefined;
    let gw: TestGateway;
    let sid: string;
    let uploadRoot: string;
    const rows: Row[] = [];

    const call = (tool: string, args: Record<string, unknown> = {}): Promise<HttpResult> =>
      gw.request('POST', `/v1/sessions/${sid}/tools/${tool}`, { body: args });
    const { ok, refOf } = toolSession(call);
    const asOwner = (method: string, pathname: string, body?: unknown) =>
      gw.request(method, pathname, { body, headers: { authorization: `Bearer ${gw.operatorKey}` } });
    const pendingOf = (session: string) =>
      waitFor(
        async () => {
          const listed = await asOwner('GET', '/v1/approvals?status=pending');
          return (listed.body.approvals as { approval_id: string; session_id: string }[]).find(
            (approval) => approval.session_id === session,
          );
        },
        { what: 'the approval to be asked for', within: 15_000 },
      );

    before(async () => {
      sites = await startApprovalSites();
      uploadRoot = tempDir('approvals');
      fs.writeFileSync(path.join(uploadRoot, 'doc.txt'), 'a document');
      started = await start(sites, uploadRoot);
      gw = started.gw;
      sid = await gw.createSession('approvals');
    });
    after(async () => {
      if (rows.length > 0) {
        const lines = rows.map(
          (row) =>
            `${row.variant.padEnd(58)} ${String(row.pending).padStart(7)} ${String(row.denied).padStart(6)} ${String(row.timedOut ?? '-').padStart(8)} ${String(row.approved).padStart(8)}`,
        );
        process.stdout.write(
          `\n# side effects per trigger variant (${browser}): goal 0 0 0 1\n${'variant'.padEnd(58)} pending denied timedout approved\n${lines.join('\n')}\n`,
        );
      }
      await started?.dispose();
      await sites?.close();
      if (uploadRoot) fs.rmSync(uploadRoot, { recursive: true, force: true });
    });

    /** One run of a variant: the call waits, the owner decides (or nobody does), the effects counted. */
    const runOnce = async (variant: Variant, decision: 'approve' | 'deny' | 'timeout') => {
      sites.requests.length = 0;
      const { title = '' } = await ok('browser_navigate', { url: variant.page(sites) });
      await variant.prepare?.(ok, refOf);
      const [tool, args] = await variant.act(refOf);
      const running = call(tool, args);
      const pending = await pendingOf(sid);
      // Read as the approval is listed; a request let out before the decision would also be counted
      // after a denial, where the page shows the attempt is over.
      const whilePending = 'path' in variant.effect ? sites.hits(variant.effect.path) : 0;
      if (decision !== 'timeout') {
        const decided = await asOwner('POST', `/v1/approvals/${pending.approval_id}/${decision}`);
        assert.equal(decided.status, 200, JSON.stringify(decided.body));
      }
      const result = await running;
      if (decision === 'approve') assert.equal(result.status, 200, JSON.stringify(result.body));
      else {
        assert.equal(errorCode(result), decision === 'deny' ? 'approval_denied' : 'approval_timeout');
        if (variant.dismissAfter) await ok('browser_dialog', { action: 'dismiss' });
      }
      return {
        whilePending,
        after: await timesDone(ok, sites, variant.effect, decision === 'approve' ? null : { title }),
      };
    };

    for (const variant of variants('/placeholder')) {
      if (variant.localOnly && browser !== 'local') continue;
      it(`holds ${variant.name} until approved, then does it once`, async () => {
        const concrete = variants(path.join(uploadRoot, 'doc.txt')).find((v) => v.name === variant.name);
        assert.ok(concrete);
        const denied = await runOnce(concrete, 'deny');
        assert.equal(denied.whilePending, 0, 'nothing reached the server before the decision');
        assert.equal(denied.after, 0, 'nothing happened after the denial');
        const approved = await runOnce(concrete, 'approve');
        assert.equal(approved.whilePending, 0, 'nothing reached the server before the approval');
        assert.equal(approved.after, 1, 'it happened exactly once after the approval');
        rows.push({
          variant: concrete.name,
          pending: denied.whilePending + approved.whilePending,
          denied: denied.after,
          timedOut: null,
          approved: approved.after,
        });
      });
    }

    for (const label of [
      'click submits a POST form',
      'fetch POST after a neutral click',
      'accepting a confirm dialog',
    ]) {
      it(`never does ${label} when nobody decides within safety.approval_timeout_s`, async () => {
        const variant = variants('/unused').find((v) => v.name === label);
        assert.ok(variant);
        const timedOut = await runOnce(variant, 'timeout');
        assert.equal(timedOut.whilePending, 0);
        assert.equal(timedOut.after, 0);
        const row = rows.find((r) => r.variant === label);
        if (row) row.timedOut = timedOut.after;
      });
    }

    it('asks nothing for benign inputs: a neutral click, a GET fetch, a link, typing', async () => {
      const before = (await asOwner('GET', '/v1/approvals')).body.approvals.length as number;
      await ok('browser_navigate', { url: sites.shopUrl('/fetch') });
      await ok('browser_click', { ref: await refOf('button "Read notes"') });
      await ok('browser_navigate', { url: sites.shopUrl('/lexicon') });
      await ok('browser_click', { ref: await refOf('button "Refresh"') });
      await ok('browser_navigate', { url: sites.shopUrl('/neutral') });
      await ok('browser_type', { ref: await refOf('textbox "Search box"'), text: 'shoes' });
      await ok('browser_click', { ref: await refOf('link "Next page"') });
      assert.equal((await asOwner('GET', '/v1/approvals')).body.approvals.length, before);
      assert.equal(sites.hits('/api/read'), 1);
    });

    it('asks at most 3 approvals over a scripted 20-step benign task across two sites', async () => {
      const asked = async () => (await asOwner('GET', '/v1/approvals')).body.approvals.length as number;
      const before = await asked();
      // The one consequential step (a profile saved by POST) is approved as the owner would.
      const approveWhenAsked = async (running: Promise<HttpResult>) => {
        const pending = await pendingOf(sid);
        await asOwner('POST', `/v1/approvals/${pending.approval_id}/approve`);
        return running;
      };
      const steps: (() => Promise<unknown>)[] = [
        () => ok('browser_navigate', { url: sites.shopUrl('/neutral') }),
        () => ok('browser_snapshot'),
        async () => ok('browser_type', { ref: await refOf('textbox "Search box"'), text: 'lamp' }),
        async () => ok('browser_click', { ref: await refOf('link "Next page"') }),
        () => ok('browser_navigate', { url: sites.shopUrl('/fetch') }),
        async () => ok('browser_click', { ref: await refOf('button "Read notes"') }),
        () => ok('browser_navigate', { url: sites.shopUrl('/search-form') }),
        async () => ok('browser_type', { ref: await refOf('textbox "Query"'), text: 'desk lamp' }),
        async () => ok('browser_click', { ref: await refOf('button "Search"') }),
        () => ok('browser_snapshot'),
        () => ok('browser_navigate', { url: sites.docsUrl('/guide') }),
        () => ok('browser_scroll', { direction: 'down' }),
        async () => ok('browser_click', { ref: await refOf('link "Chapter 2"') }),
        () => ok('browser_back'),
        () => ok('browser_read'),
        () => ok('browser_navigate', { url: sites.shopUrl('/form-post') }),
        async () => ok('browser_type', { ref: await refOf('textbox "Nickname"'), text: 'ann' }),
        async () => {
          const saved = await approveWhenAsked(call('browser_click', { ref: await refOf('button "Save"') }));
          assert.equal(saved.status, 200, JSON.stringify(saved.body));
        },
        () => ok('browser_snapshot'),
        () => ok('browser_navigate', { url: sites.docsUrl('/guide') }),
      ];
      assert.equal(steps.length, 20);
      for (const step of steps) await step();
      const approvals = (await asked()) - before;
      process.stdout.write(
        `\n# approvals over a 20-step benign task (${browser}): ${approvals} (goal ≤ 3)\n`,
      );
      assert.ok(approvals <= 3, `${approvals} approvals`);
      assert.equal(sites.hits('/results'), 1);
    });

    it('with wait: false answers approval_required at once; the same call runs once approved, once only', async () => {
      const saved: PathEffect = { path: '/save', noted: 'submit' };
      await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
      const save = await refOf('button "Save"');
      sites.requests.length = 0;
      const asked = await call('browser_click', { ref: save, wait: false });
      assert.equal(asked.status, 409, JSON.stringify(asked.body));
      assert.equal(errorCode(asked), 'approval_required');
      const id = asked.body.error.approval_id as string;
      // Asked again while pending: the same approval, not a second one.
      const again = await call('browser_click', { ref: save, wait: false });
      assert.equal(again.body.error.approval_id, id);
      const status = await ok('browser_approval_status', { approval_id: id });
      assert.equal((status as unknown as { status: string }).status, 'pending');
      const byGet = await gw.request('GET', `/v1/approvals/${id}`);
      assert.equal(byGet.status, 200);
      assert.equal(byGet.body.approval.status, 'pending');
      assert.equal(await timesDone(ok, sites, saved, { title: 'Profile' }), 0);
      assert.equal((await asOwner('POST', `/v1/approvals/${id}/approve`)).status, 200);
      await ok('browser_click', { ref: save, wait: false });
      assert.equal(await timesDone(ok, sites, saved, null), 1);
      const used = await ok('browser_approval_status', { approval_id: id });
      assert.equal((used as unknown as { status: string }).status, 'used');
      // Used: approving again is refused, and the same call asks anew.
      const twice = await asOwner('POST', `/v1/approvals/${id}/approve`);
      assert.equal(errorCode(twice), 'approval_already_decided');
      await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
      const next = await call('browser_click', { ref: await refOf('button "Save"'), wait: false });
      assert.equal(errorCode(next), 'approval_required');
      assert.notEqual(next.body.error.approval_id, id);
      assert.equal(await timesDone(ok, sites, saved, { title: 'Profile' }), 1, 'still the one approved save');
    });

    it('does not let an approval of one action approve another (changed arguments, other ref)', async () => {
      await ok('browser_navigate', { url: sites.shopUrl('/lexicon') });
      const del = await refOf('button "Delete account"');
      const buy = await refOf('link "Buy now"');
      sites.requests.length = 0;
      const asked = await call('browser_click', { ref: del, wait: false });
      const id = asked.body.error.approval_id as string;
      assert.equal((await asOwner('POST', `/v1/approvals/${id}/approve`)).status, 200);
      const other = await call('browser_click', { ref: buy, wait: false });
      assert.equal(errorCode(other), 'approval_required');
      assert.notEqual(other.body.error.approval_id, id);
      const changed = await call('browser_click', { ref: del, double: true, wait: false });
      assert.equal(errorCode(changed), 'approval_required');
      assert.equal(await timesDone(ok, sites, { path: '/bought', noted: 'buy' }, { title: 'Account' }), 0);
      assert.equal(
        await timesDone(ok, sites, { path: '/api/delete', noted: 'delete' }, { title: 'Account' }),
        0,
      );
      assert.equal(
        ((await ok('browser_approval_status', { approval_id: id })) as unknown as { status: string }).status,
        'approved',
      );
    });

    it('refuses unknown, expired and other-session approval ids with typed errors', async () => {
      sites.requests.length = 0;
      const unknown = await asOwner('POST', '/v1/approvals/apr_nope/approve');
      assert.equal(unknown.status, 404);
      assert.equal(errorCode(unknown), 'approval_not_found');
      await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
      const asked = await call('browser_click', { ref: await refOf('button "Save"'), wait: false });
      const id = asked.body.error.approval_id as string;
      const other = await gw.createSession('another');
      const fromOther = await gw.request('POST', `/v1/sessions/${other}/tools/browser_approval_status`, {
        body: { approval_id: id },
      });
      assert.equal(errorCode(fromOther), 'approval_not_found');
      await waitFor(
        async () => (await asOwner('GET', `/v1/approvals/${id}`)).body.approval.status === 'expired',
        { what: 'the approval to expire', within: APPROVAL_TIMEOUT_S * 1000 + 5_000 },
      );
      const late = await asOwner('POST', `/v1/approvals/${id}/approve`);
      assert.equal(late.status, 410);
      assert.equal(errorCode(late), 'approval_expired');
      assert.equal(await timesDone(ok, sites, { path: '/save', noted: 'submit' }, { title: 'Profile' }), 0);
    });

    it('refuses decisions by the agent key, a pairing token, and a page; audits the owner', async () => {
      sites.requests.length = 0;
      await ok('browser_navigate', { url: sites.shopUrl('/form-post') });
      const asked = await call('browser_click', { ref: await refOf('button "Save"'), wait: false });
      const id = asked.body.error.approval_id as string;
      const byAgent = await gw.request('POST', `/v1/approvals/${id}/approve`, { body: {} });
      assert.equal(byAgent.status, 403);
      assert.equal(errorCode(byAgent), 'operator_required');
      const listByAgent = await gw.request('GET', '/v1/approvals');
      assert.equal(listByAgent.status, 403);
      const { token } = await pairedToken(gw);
      const byToken = await gw.request('POST', `/v1/approvals/${id}/approve`, {
        body: {},
        headers: withToken(token),
      });
      assert.equal(byToken.status, 403);
      assert.equal(errorCode(byToken), 'operator_required');
      const readByToken = await gw.request('GET', `/v1/approvals/${id}`, { headers: withToken(token) });
      assert.equal(readByToken.status, 403);
      assert.equal(errorCode(readByToken), 'token_scope_forbidden');
      const byPage = await gw.request('POST', `/v1/approvals/${id}/approve`, {
        body: {},
        headers: { origin: sites.shopOrigin },
      });
      assert.equal(byPage.status, 403);
      assert.equal(errorCode(byPage), 'forbidden_origin');
      const ownerFromPage = await gw.request('POST', `/v1/approvals/${id}/approve`, {
        body: {},
        headers: { origin: sites.shopOrigin, authorization: `Bearer ${gw.operatorKey}` },
      });
      assert.equal(ownerFromPage.status, 403, 'a page cannot use even the owner key it somehow holds');
      assert.equal((await asOwner('GET', `/v1/approvals/${id}`)).body.approval.status, 'pending');
      const denied = await asOwner('POST', `/v1/approvals/${id}/deny`);
      assert.equal(denied.body.approval.channel, 'cli');
      assert.ok(denied.body.approval.decided_at);
      const row = await waitFor(
        async () => {
          const audit = await gw.request('GET', `/v1/audit?session=${sid}&limit=1000`);
          const entries = audit.body.entries as {
            action: string;
            principal_id: string;
            arguments: { channel?: string };
          }[];
          return entries.find((entry) => entry.action === 'approval.deny');
        },
        { what: 'the decision in the audit log' },
      );
      assert.equal(row.principal_id, 'owner');
      assert.equal(row.arguments.channel, 'cli');
      assert.equal(await timesDone(ok, sites, { path: '/save', noted: 'submit' }, { title: 'Profile' }), 0);
    });
  });
}
