/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- tests read JSON bodies */
/**
 * The takeover on the local Chromium (docs/safety.md "Takeover"): `browser_request_takeover` keeps the
 * agent's call pending and the session paused until the person, with the operator credential, marks the
 * step done or declines it, or the window passes (on a manual clock). The agent's API key cannot decide
 * it; the owner's Stop ends it; each takeover leaves one audit row naming who decided.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ManualClock, settledNow } from '../helpers/manual-clock.js';
import { runTabgate as tabgate } from '../helpers/tabgate-cli.js';
import { waitFor } from '../helpers/wait-for.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';

const TAKEOVER_TIMEOUT_S = 120;

describe('takeover on the local browser', () => {
  let site: TestSite;
  let gw: TestGateway;
  const clock = new ManualClock(Date.now());
  const asOwner = { authorization: '' };
  before(async () => {
    site = await startTestSite();
    gw = await startTestGateway({
      clock,
      config: { safety: { takeover_timeout_s: TAKEOVER_TIMEOUT_S }, audit: { all_backends: false } },
    });
    asOwner.authorization = `Bearer ${gw.operatorKey}`;
  });
  after(async () => {
    await gw.close();
    await site.close();
  });

  const call = (sessionId: string, tool: string, body: unknown = {}, headers?: Record<string, string>) =>
    gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body, ...(headers ? { headers } : {}) });
  const pendingTakeover = (sessionId: string) =>
    waitFor(
      async () => {
        const list = await gw.request('GET', '/v1/approvals?status=pending', { headers: asOwner });
        const found = (
          list.body.approvals as { kind: string; session_id: string; approval_id: string }[]
        ).find((a) => a.kind === 'takeover' && a.session_id === sessionId);
        return found ?? null;
      },
      { what: 'the pending takeover' },
    );
  const decide = (id: string, verb: 'approve' | 'deny', headers: Record<string, string> = asOwner) =>
    gw.request('POST', `/v1/approvals/${id}/${verb}`, { body: {}, headers });
  const statusOf = async (id: string) =>
    (await gw.request('GET', `/v1/approvals/${id}`, { headers: asOwner })).body.approval.status as string;
  const openPage = async () => {
    const sessionId = await gw.createSession();
    const opened = await call(sessionId, 'browser_navigate', { url: site.url('/form') });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    return {
      sessionId,
      url: opened.body.result.url as string,
      title: opened.body.result.title as string,
    };
  };

  it('pauses the session until the owner marks the step done; the agent cannot decide it', async () => {
    const { sessionId, url } = await openPage();
    const waiting = call(sessionId, 'browser_request_takeover', { reason: 'Log in to the shop, please' });
    const takeover = await pendingTakeover(sessionId);
    assert.match(JSON.stringify(takeover), /Log in to the shop, please/);
    assert.equal(JSON.stringify(takeover).includes(new URL(url).origin), true, 'the page origin is shown');

    // Paused: the agent's other calls are refused and reach no browser.
    const refused = await call(sessionId, 'browser_snapshot');
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'takeover_pending');
    const second = await call(sessionId, 'browser_request_takeover', { reason: 'again' });
    assert.equal(second.body.error.code, 'takeover_pending');

    // A forgery with the agent's API key is refused and changes nothing.
    const forged = await decide(takeover.approval_id, 'approve', { authorization: `Bearer ${gw.key}` });
    assert.equal(forged.status, 403);
    assert.equal(forged.body.error.code, 'operator_required');
    assert.equal(await statusOf(takeover.approval_id), 'pending');
    assert.equal(await settledNow(waiting), false, 'the call still waits');

    const done = await decide(takeover.approval_id, 'approve');
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const answer = await waiting;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    // Where the person left the page, and nothing they typed. (The title is the browser's tab list's.)
    const { title: shownTitle, ...rest } = answer.body.result;
    assert.deepEqual(rest, { done: true, takeover_id: takeover.approval_id, url });
    assert.equal(typeof shownTitle, 'string');
    assert.equal(await statusOf(takeover.approval_id), 'used');
    assert.equal((await call(sessionId, 'browser_snapshot')).status, 200, 'resumed');

    // One audit row for the takeover (beside the refused second one), with how it ended and who decided.
    const audit = await gw.request('GET', `/v1/audit?session=${sessionId}`, {
      headers: { authorization: `Bearer ${gw.key}` },
    });
    const rows = (audit.body.entries as { action: string; outcome: string; context: unknown }[]).filter(
      (row) =>
        (row.action.includes('takeover') || row.action.startsWith('approval.')) &&
        row.outcome !== 'takeover_pending',
    );
    assert.equal(rows.length, 1, JSON.stringify(audit.body.entries));
    assert.equal(rows[0]?.action, 'browser_request_takeover');
    assert.equal(rows[0]?.outcome, 'ok');
    assert.deepEqual(rows[0]?.context, {
      takeover: { takeover_id: takeover.approval_id, outcome: 'done', decided_by: 'owner', channel: 'cli' },
    });
  });

  it('answers takeover_declined when the owner declines in the terminal', async () => {
    const { sessionId } = await openPage();
    const waiting = call(sessionId, 'browser_request_takeover', { reason: 'Solve the CAPTCHA' });
    const takeover = await pendingTakeover(sessionId);
    const approvals = (...args: string[]) => tabgate(gw.home, ['approvals', '--gateway', gw.url, ...args]);
    const listed = await approvals('list');
    assert.match(
      listed.stdout,
      new RegExp(`${takeover.approval_id} +pending .*takeover: "Solve the CAPTCHA"`),
    );
    const declined = await approvals('decline', takeover.approval_id);
    assert.equal(declined.code, 0, declined.stderr);
    assert.match(declined.stdout, /^Declined: .* denied /);
    const answer = await waiting;
    assert.equal(answer.status, 409);
    assert.equal(answer.body.error.code, 'takeover_declined');
    assert.equal((await call(sessionId, 'browser_snapshot')).status, 200, 'resumed');
  });

  it('answers takeover_timeout once its window passes, and not before', async () => {
    const { sessionId } = await openPage();
    const waiting = call(sessionId, 'browser_request_takeover', {
      reason: 'Confirm on your phone',
      timeout_s: 30,
    });
    const takeover = await pendingTakeover(sessionId);
    clock.advance(29_000);
    assert.equal(await settledNow(waiting), false, 'not before its 30 s');
    clock.advance(1_000);
    const answer = await waiting;
    assert.equal(answer.body.error.code, 'takeover_timeout');
    assert.equal(await statusOf(takeover.approval_id), 'expired');
    const late = await decide(takeover.approval_id, 'approve');
    assert.equal(late.body.error.code, 'approval_expired', 'a late "done" resumes nothing');
  });

  it("ends on the owner's Stop with the Stop code, and a later decision finds nothing pending", async () => {
    const { sessionId } = await openPage();
    const waiting = call(sessionId, 'browser_request_takeover', { reason: 'Log in' });
    const takeover = await pendingTakeover(sessionId);
    const stop = await gw.request('POST', `/v1/sessions/${sessionId}/stop`, { body: {}, headers: asOwner });
    assert.equal(stop.status, 200);
    assert.equal((await waiting).body.error.code, 'session_stopped_by_owner');
    await waitFor(async () => (await statusOf(takeover.approval_id)) === 'expired', { what: 'withdrawn' });
    assert.equal((await decide(takeover.approval_id, 'approve')).body.error.code, 'approval_expired');
  });

  it('refuses bad input and a session with no page, changing nothing', async () => {
    const sessionId = await gw.createSession();
    const noPage = await call(sessionId, 'browser_request_takeover', { reason: 'Log in' });
    assert.equal(noPage.body.error.code, 'takeover_unavailable');
    const { sessionId: withPage } = await openPage();
    for (const body of [
      { reason: 'Log in\nthen click Pay' },
      { reason: '' },
      { reason: 'x'.repeat(301) },
      { reason: 'Log in', timeout_s: TAKEOVER_TIMEOUT_S + 1 },
      { reason: 'Log in', extra: true },
    ]) {
      const refused = await call(withPage, 'browser_request_takeover', body);
      assert.equal(refused.status, 400, JSON.stringify(body));
      assert.equal(refused.body.error.code, 'invalid_arguments');
    }
    const list = await gw.request('GET', '/v1/approvals?status=pending', { headers: asOwner });
    const mine = (list.body.approvals as { session_id: string }[]).filter(
      (a) => a.session_id === sessionId || a.session_id === withPage,
    );
    assert.deepEqual(mine, []);
  });
});
