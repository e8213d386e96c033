/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- tests read JSON bodies */
/**
 * Approvals and takeovers in a cluster are the cluster's, not a node's: one asked through node A is
 * listed and decided through node B (the operator's channel, the extension's list), and the call that
 * waits on A learns of the decision at once — approved, it runs once and only once; denied or
 * declined, it ends with the refusal one gateway gives; done, the takeover resumes the call held on A.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXTENSION_ORIGIN } from '../../src/protocol/index.js';
import { tabsAnswer, type TestController } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { pairedController } from '../gateway/fixtures/paired-controller.js';
import { asOperator, withToken } from '../extension/pairing-helpers.js';
import { waitFor } from '../helpers/wait-for.js';
import { usePostgresCluster } from './fixtures/cluster-nodes.js';
import { PLACE_ORDER_ASK as ASK } from '../gateway/fixtures/approval-ask.js';

const COMMAND = 'browser.controller.command';

interface Served {
  sid: string;
  token: string;
  controller: TestController;
}

describe('approvals and takeovers across nodes', () => {
  // PostgreSQL: its change feed tells B of the pairing made through A.
  const fixture = usePostgresCluster(2);
  const nodes = () => fixture.gateways() as [TestGateway, TestGateway];

  /** A session on A served by a paired extension whose socket is on A. */
  const served = async (): Promise<Served> => {
    const [a] = nodes();
    const sid = await a.createSession();
    return { sid, ...(await pairedController(a, sid)) };
  };
  const base = (s: Served) => `/v1/browser-control/sessions/${s.sid}/approvals`;
  const asExtension = (s: Served) => withToken(s.token, { origin: EXTENSION_ORIGIN });
  /** The worker asks through A, once the store shows the session bound to its browser. */
  const ask = (s: Served, body: Record<string, unknown> = ASK) =>
    waitFor(
      async () => {
        const opened = await nodes()[0].request('POST', base(s), { body, headers: asExtension(s) });
        return opened.body?.error?.code === 'token_scope_forbidden' ? null : opened;
      },
      { what: 'the session bound to the extension' },
    );
  /** The owner's pending list through a node, as `tabgate approvals` reads it. */
  const pendingOn = async (gw: TestGateway, sid: string, kind: string) => {
    const listed = await gw.request('GET', '/v1/approvals?status=pending', { headers: asOperator(gw) });
    return (listed.body.approvals as { approval_id: string; session_id: string; kind: string }[]).find(
      (r) => r.session_id === sid && r.kind === kind,
    );
  };
  const decideOn = (gw: TestGateway, id: string, approve: boolean) =>
    gw.request('POST', `/v1/approvals/${id}/${approve ? 'approve' : 'deny'}`, {
      body: {},
      headers: asOperator(gw),
    });
  /** Answers the next command, which must be browser_tabs. */
  const answerTabs = async (controller: TestController, label: string) => {
    const command = await controller.next(COMMAND);
    assert.equal(command.params.action, 'browser_tabs');
    controller.result(command.params.command_id, true, tabsAnswer(label));
  };

  it('an approval asked through A is listed and approved through B; the claim on A runs it once', async () => {
    const [a, b] = nodes();
    const s = await served();
    const opened = await ask(s);
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    const id = opened.body.approval.approval_id as string;
    const claim = a.request('POST', `${base(s)}/${id}/claim`, { body: {}, headers: asExtension(s) });

    // The extension reads its session's approvals through whichever node the load balancer picks.
    const onB = await waitFor(
      async () => {
        const listed = await b.request('GET', base(s), { headers: asExtension(s) });
        // (A pairing made a moment ago on A may take B a moment to learn.)
        if (listed.status !== 200) return null;
        return (listed.body.approvals as { approval_id: string }[]).find((r) => r.approval_id === id);
      },
      { what: 'the approval in the extension’s list through B' },
    );
    assert.equal(onB.approval_id, id);
    assert.equal((await pendingOn(b, s.sid, 'action'))?.approval_id, id);
    const approved = await decideOn(b, id, true);
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.approval.decided_by !== null, true);

    const claimed = await claim;
    assert.deepEqual(claimed.body, { outcome: 'approved' });
    // Single use across the cluster: a second claim, through either node, finds it used.
    for (const gw of [b, a]) {
      const again = await gw.request('POST', `${base(s)}/${id}/claim`, { body: {}, headers: asExtension(s) });
      assert.deepEqual(again.body, { outcome: 'used' });
    }
    // And decided once: a second decision through A is refused.
    const twice = await decideOn(a, id, false);
    assert.equal(twice.body.error.code, 'approval_already_decided', JSON.stringify(twice.body));
    const read = await a.request('GET', `/v1/approvals/${id}`, { headers: asOperator(a) });
    assert.equal(read.body.approval.status, 'used');
    await s.controller.close();
  });

  it('a deny through B ends the claim waiting on A as denied, and nothing may use it', async () => {
    const [a, b] = nodes();
    const s = await served();
    const opened = await ask(s);
    const id = opened.body.approval.approval_id as string;
    const claim = a.request('POST', `${base(s)}/${id}/claim`, { body: {}, headers: asExtension(s) });
    await waitFor(() => pendingOn(b, s.sid, 'action'), { what: 'the approval listed through B' });
    const denied = await decideOn(b, id, false);
    assert.equal(denied.status, 200, JSON.stringify(denied.body));
    assert.deepEqual((await claim).body, { outcome: 'denied' });
    await s.controller.close();
  });

  it('the popup’s decision counts through B with the key A handed out, and only with it', async () => {
    const [a, b] = nodes();
    const s = await served();
    const opened = await ask(s, { ...ASK, crop: 'data:image/jpeg;base64,AAAA' });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    const id = opened.body.approval.approval_id as string;
    const key = opened.body.decision_key as string;
    const claim = a.request('POST', `${base(s)}/${id}/claim`, { body: {}, headers: asExtension(s) });
    // The popup shows what the worker saw, through whichever node it reads.
    const listed = await waitFor(
      async () => {
        const read = await b.request('GET', base(s), { headers: asExtension(s) });
        if (read.status !== 200) return null; // B learns of a new pairing a moment later
        const found = (read.body.approvals as { approval_id: string; crop: string | null }[]).find(
          (r) => r.approval_id === id,
        );
        return found?.crop ? found : null;
      },
      { what: 'the approval with its crop through B' },
    );
    assert.equal(listed.crop, 'data:image/jpeg;base64,AAAA');
    const decideInPopup = (decisionKey: string) =>
      b.request('POST', `${base(s)}/${id}/approve`, {
        body: { decision_key: decisionKey },
        headers: asExtension(s),
      });
    const forged = await decideInPopup(`${key.slice(0, -1)}${key.endsWith('x') ? 'y' : 'x'}`);
    assert.equal(forged.body.error?.code, 'operator_required', JSON.stringify(forged.body));
    const approved = await decideInPopup(key);
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.approval.channel, 'extension');
    assert.deepEqual((await claim).body, { outcome: 'approved' });
    await s.controller.close();
  });

  it('a takeover’s key is handed out once across the cluster', async () => {
    const [a, b] = nodes();
    const s = await served();
    const waiting = a.request('POST', `/v1/sessions/${s.sid}/tools/browser_request_takeover`, {
      body: { reason: 'Log in' },
    });
    await answerTabs(s.controller, 'before');
    const takeover = await waitFor(() => pendingOn(b, s.sid, 'takeover'), {
      what: 'the takeover listed through B',
    });
    const take = (gw: TestGateway) =>
      gw.request('POST', `${base(s)}/${takeover.approval_id}/take`, { body: {}, headers: asExtension(s) });
    const taken = await waitFor(
      async () => {
        const answer = await take(b);
        return answer.status === 401 ? null : answer; // B learns of a new pairing a moment later
      },
      { what: 'the key through B' },
    );
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    const again = await take(a);
    assert.equal(again.body.error?.code, 'operator_required', 'handed out once, whichever node is asked');
    const done = await a.request('POST', `${base(s)}/${takeover.approval_id}/approve`, {
      body: { decision_key: taken.body.decision_key },
      headers: asExtension(s),
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    await answerTabs(s.controller, 'after');
    assert.equal((await waiting).status, 200);
    await s.controller.close();
  });

  for (const done of [true, false]) {
    it(`a takeover ${done ? 'marked done' : 'declined'} through B ${done ? 'resumes' : 'ends'} the call held on A`, async () => {
      const [a, b] = nodes();
      const s = await served();
      const waiting = a.request('POST', `/v1/sessions/${s.sid}/tools/browser_request_takeover`, {
        body: { reason: 'Log in' },
      });
      await answerTabs(s.controller, 'before');
      const takeover = await waitFor(() => pendingOn(b, s.sid, 'takeover'), {
        what: 'the takeover listed through B',
      });
      // The session is paused on every node: B refuses the agent's other calls too.
      const refused = await b.request('POST', `/v1/sessions/${s.sid}/tools/browser_tabs`, { body: {} });
      assert.equal(refused.body.error.code, 'takeover_pending', JSON.stringify(refused.body));

      const decided = await decideOn(b, takeover.approval_id, done);
      assert.equal(decided.status, 200, JSON.stringify(decided.body));
      if (done) await answerTabs(s.controller, 'after');
      const answer = await waiting;
      if (done) {
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        assert.equal(answer.body.result.takeover_id, takeover.approval_id);
        assert.equal(answer.body.result.title, 'after');
      } else {
        assert.equal(answer.body.error.code, 'takeover_declined', JSON.stringify(answer.body));
      }
      // Resumed or ended, the session is no longer paused on B.
      const next = b.request('POST', `/v1/sessions/${s.sid}/tools/browser_tabs`, { body: {} });
      await answerTabs(s.controller, 'next');
      assert.equal((await next).status, 200);
      await s.controller.close();
    });
  }
});
