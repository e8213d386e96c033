/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * A command on the user's tab that waits for the person's approval is bounded by the approval's
 * timeout, not by its own deadline, in a cluster as on one gateway: the agent calls through B, the
 * extension's socket is on A and it asks for the approval through A, and the call on B still waits once
 * its command deadline has passed, then gets the controller's result once the person approved.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXTENSION_ORIGIN } from '../../src/protocol/index.js';
import { catalogAnswer } from '../gateway/fixtures/controller.js';
import type { TestGateway } from '../gateway/fixtures/gateway.js';
import { pairedController } from '../gateway/fixtures/paired-controller.js';
import { asOperator, withToken } from '../extension/pairing-helpers.js';
import { waitFor } from '../helpers/wait-for.js';
import { usePostgresCluster, type ClusterNode } from './fixtures/cluster-nodes.js';
import { PLACE_ORDER_ASK } from '../gateway/fixtures/approval-ask.js';

const COMMAND_TIMEOUT_S = 1;
const APPROVAL_TIMEOUT_S = 30;

/** The extension asks for the approval through `node`, once the store shows the session bound to it. */
function openApproval(node: TestGateway, sid: string, token: string) {
  return waitFor(
    async () => {
      const answer = await node.request('POST', `/v1/browser-control/sessions/${sid}/approvals`, {
        body: PLACE_ORDER_ASK,
        headers: withToken(token, { origin: EXTENSION_ORIGIN }),
      });
      // The store shows the session bound to the extension a moment after its socket opened.
      return answer.body?.error?.code === 'token_scope_forbidden' ? null : answer;
    },
    { what: 'the approval to be opened' },
  );
}

describe('a command that waits for approval, across nodes', () => {
  const fixture = usePostgresCluster(2, {
    browser: { extension_control: { enabled: true, command_timeout: COMMAND_TIMEOUT_S } },
    safety: { approval_timeout_s: APPROVAL_TIMEOUT_S },
  });

  /** The agent clicks through B; the extension, its socket on A, asks for the approval through A. */
  const clickWaitingForApproval = async () => {
    const [a, b] = fixture.gateways() as [TestGateway, TestGateway];
    const sid = await a.createSession();
    const { token, controller } = await pairedController(a, sid);
    const click = b.request('POST', `/v1/sessions/${sid}/tools/browser_click`, { body: { ref: '@e3' } });
    const command = await controller.next('browser.controller.command');
    const opened = await openApproval(a, sid, token);
    return { b, controller, click, command, opened };
  };

  it('keeps the call on B waiting past its command deadline while the person decides', async () => {
    const { b, controller, click, command, opened } = await clickWaitingForApproval();
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    // The command's own deadline, without the approval window the frame adds for the extension.
    const ownDeadline = Number(command.params.deadline_at) - APPROVAL_TIMEOUT_S * 1000;
    let answered = false;
    void click.then(() => (answered = true));
    await waitFor(() => Date.now() > ownDeadline + 500, {
      what: 'the command deadline to pass',
      within: (COMMAND_TIMEOUT_S + 5) * 1000,
      every: 50,
    });
    assert.equal(answered, false, 'the call still waits for the person');
    const approved = await b.request('POST', `/v1/approvals/${opened.body.approval.approval_id}/approve`, {
      body: {},
      headers: asOperator(b),
    });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    controller.result(command.params.command_id, true, catalogAnswer('browser_click'));
    const result = await click;
    assert.equal(result.status, 200, JSON.stringify(result.body));
    await controller.close();
  });

  it('names the approval in the denial the call on B gets, as one gateway does', async () => {
    const { b, controller, click, command, opened } = await clickWaitingForApproval();
    const id = opened.body.approval.approval_id as string;
    // As the owner would: deciding what B lists (B learns of A's approval through Redis a moment later).
    await waitFor(
      async () => (await b.request('GET', `/v1/approvals/${id}`, { headers: asOperator(b) })).status === 200,
      { what: 'B to list the approval' },
    );
    const denied = await b.request('POST', `/v1/approvals/${opened.body.approval.approval_id}/deny`, {
      body: {},
      headers: asOperator(b),
    });
    assert.equal(denied.status, 200, JSON.stringify(denied.body));
    // The extension's protocol v1 rejection carries the code; the gateway names the approval.
    controller.result(command.params.command_id, false, {
      code: 'approval_denied',
      message: 'The person denied click @e3; nothing was done.',
    });
    const result = await click;
    assert.equal(result.body.error.code, 'approval_denied', JSON.stringify(result.body));
    assert.equal(result.body.error.approval_id, opened.body.approval.approval_id);
    await controller.close();
  });

  // Last: it kills B.
  it('cancels the command at the controller when B dies while the person still decides', async () => {
    const { controller, click, command, opened } = await clickWaitingForApproval();
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    void click.catch(() => null);
    // Past the command's own deadline and two leases: how long A used to watch for a dead caller.
    const ownDeadline = Number(command.params.deadline_at) - APPROVAL_TIMEOUT_S * 1000;
    await waitFor(() => Date.now() > ownDeadline + 7000, {
      what: 'the command deadline and two leases to pass',
      within: (COMMAND_TIMEOUT_S + 10) * 1000,
      every: 100,
    });
    const b = fixture.cluster.nodes[1] as ClusterNode;
    b.child.kill('SIGKILL');
    await b.exited;
    // B's lease lives 3 s; A looks every 0.5 s.
    const cancel = await controller.next('browser.controller.cancel', 8000);
    assert.equal(cancel.params.command_id, command.params.command_id);
    await controller.close();
  });
});
