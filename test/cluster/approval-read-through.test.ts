/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * A decision may reach a node before that node has heard of the approval: the owner decides through B
 * the instant the extension asked through A, and B's copy (announced on a channel) is not there yet.
 * B reads the shared record rather than answer `approval_not_found`. Here B's announcement connection
 * is made deaf, so B's copy never arrives by itself: only that read can find the approval.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXTENSION_ORIGIN } from '../../src/protocol/index.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { pairedController } from '../gateway/fixtures/paired-controller.js';
import { asOperator, withToken } from '../extension/pairing-helpers.js';
import { useProxiedCluster } from './fixtures/cluster-nodes.js';
import { PLACE_ORDER_ASK as ASK } from '../gateway/fixtures/approval-ask.js';

describe('a decision through a node that has not yet heard of the approval', () => {
  const fixture = useProxiedCluster(2);

  it('is taken, and the call waiting on the other node learns it', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    const sessionId = await a.createSession();
    const { token, controller } = await pairedController(a, sessionId);
    const base = `/v1/browser-control/sessions/${sessionId}/approvals`;
    const asExtension = withToken(token, { origin: EXTENSION_ORIGIN });
    const subscribers = fixture.proxy.freezeNamed(`tg-sub-`);
    assert.ok(subscribers >= 2, `the nodes' announcement connections were made deaf (${subscribers})`);

    const opened = await a.request('POST', base, { body: ASK, headers: asExtension });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    const id = opened.body.approval.approval_id as string;
    const claim = a.request('POST', `${base}/${id}/claim`, { body: {}, headers: asExtension });

    const shown = await b.request('GET', `/v1/approvals/${id}`, { headers: asOperator(b) });
    assert.equal(shown.status, 200, JSON.stringify(shown.body));
    assert.equal(shown.body.approval.status, 'pending');
    const approved = await b.request('POST', `/v1/approvals/${id}/approve`, {
      body: {},
      headers: asOperator(b),
    });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.approval.status, 'approved');
    // A's own copy learns the decision by its once-a-second read of what is undecided.
    assert.deepEqual((await claim).body, { outcome: 'approved' });

    const unknown = await b.request('POST', '/v1/approvals/apr_nosuchapproval/approve', {
      body: {},
      headers: asOperator(b),
    });
    assert.equal(unknown.status, 404, JSON.stringify(unknown.body));
    assert.equal(unknown.body.error.code, 'approval_not_found');
    await controller.close();
  });
});
