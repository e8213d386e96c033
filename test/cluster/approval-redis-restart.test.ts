/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-return -- tests read JSON bodies */
/**
 * A Redis restart forgets the cluster's approvals (it holds routing state only, without persistence).
 * Nobody can decide or use a forgotten one, so what waits for it ends at once, as expired, on every
 * node, instead of at the approval timeout; a decision for it changes nothing.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXTENSION_ORIGIN } from '../../src/protocol/index.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { pairedController } from '../gateway/fixtures/paired-controller.js';
import { asOperator, withToken } from '../extension/pairing-helpers.js';
import { waitFor } from '../helpers/wait-for.js';
import { CLUSTER_CONFIG, useCluster } from './fixtures/cluster-nodes.js';
import { PLACE_ORDER_ASK as ASK } from '../gateway/fixtures/approval-ask.js';

const APPROVAL_TIMEOUT_S = 120;

describe('pending approvals across a Redis restart', () => {
  const fixture = useCluster(2, { ...CLUSTER_CONFIG, safety: { approval_timeout_s: APPROVAL_TIMEOUT_S } });

  it('end as expired on every node at once, not at their timeout', async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    const sessionId = await a.createSession();
    const { token } = await pairedController(a, sessionId);
    const base = `/v1/browser-control/sessions/${sessionId}/approvals`;
    const asExtension = withToken(token, { origin: EXTENSION_ORIGIN });
    const opened = await waitFor(
      async () => {
        const answer = await a.request('POST', base, { body: ASK, headers: asExtension });
        return answer.body?.error?.code === 'token_scope_forbidden' ? null : answer;
      },
      { what: 'the session bound to the extension' },
    );
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    const id = opened.body.approval.approval_id as string;
    let claimed: unknown;
    void a
      .request('POST', `${base}/${id}/claim`, { body: {}, headers: asExtension })
      .then((answer) => (claimed = answer.body));
    const shownOn = async (gw: TestGateway) =>
      (await gw.request('GET', `/v1/approvals/${id}`, { headers: asOperator(gw) })).body?.approval?.status;
    await waitFor(async () => (await shownOn(b)) === 'pending', { what: 'B to hold the approval' });

    await fixture.redis.restart();
    await waitFor(() => claimed, { what: 'the claim on A to end', within: 15_000 });
    assert.deepEqual(claimed, { outcome: 'expired' });
    await waitFor(async () => (await shownOn(b)) === 'expired', { what: 'B to show it expired' });
    const approved = await b.request('POST', `/v1/approvals/${id}/approve`, {
      body: {},
      headers: asOperator(b),
    });
    assert.equal(approved.body.error.code, 'approval_expired', JSON.stringify(approved.body));
  });
});
