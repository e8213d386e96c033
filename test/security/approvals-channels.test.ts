/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The approval channels end to end, over a backend that asks its gate before it "performs" anything (so
 * no browser is needed): `tabgate approvals list|approve|deny` as the owner runs it, in another process;
 * an MCP client told by progress notifications that its call waits; and `wait: false` over MCP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { BrowserBackend, ToolCall } from '../../src/gateway/backends/index.js';
import type { ToolName, ToolResults } from '../../src/protocol/index.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { runTabgate as tabgate } from '../helpers/tabgate-cli.js';
import { waitFor } from '../helpers/wait-for.js';

/** Asks its call's gate as the engine does for a click on a "Pay" button, then counts what it did. */
class GatingBackend implements BrowserBackend {
  readonly name = 'gating';
  performed = 0;
  async call<N extends ToolName>(call: ToolCall<N>): Promise<ToolResults[N]> {
    if (call.tool === 'browser_click') {
      await call.approvals?.ask({
        ref: '@e1',
        frameOrigin: 'https://shop.example',
        classes: ['irreversible_name'],
        summary: 'click @e1 button "Pay" on https://shop.example',
      });
      this.performed++;
    }
    // What a click answers; the tests send no other tool.
    return { clicked: '@e1' } as ToolResults[N];
  }
  async closeSession(): Promise<void> {}
  async close(): Promise<void> {}
}

describe('approval channels', () => {
  let gw: TestGateway;
  let backend: GatingBackend;
  before(async () => {
    backend = new GatingBackend();
    gw = await startTestGateway({
      backend,
      // Long enough for the owner-terminal case's CLI runs (each a Node start) on a loaded machine: a
      // CI run at load 23 saw an approval expire between `list` and `approve` at 30 s.
      config: { safety: { approval_timeout_s: 300, approvals: { local: 'all' } } },
    });
  });
  after(() => gw.close());

  const pendingIds = async () =>
    (
      (
        await gw.request('GET', '/v1/approvals?status=pending', {
          headers: { authorization: `Bearer ${gw.operatorKey}` },
        })
      ).body.approvals as { approval_id: string }[]
    ).map((a) => a.approval_id);

  it('lists, approves and denies from the owner terminal; the action happens only once approved', async () => {
    const sessionId = await gw.createSession();
    const approvals = (...args: string[]) => tabgate(gw.home, ['approvals', '--gateway', gw.url, ...args]);
    const empty = await approvals('list');
    assert.equal(empty.code, 0, empty.stderr);
    assert.match(empty.stdout, /No approvals are waiting/);
    const first = gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_click`, {
      body: { ref: '@e1' },
    });
    const [id] = await waitFor(async () => ((await pendingIds()).length > 0 ? pendingIds() : null), {
      what: 'the approval',
    });
    assert.ok(id);
    const listed = await approvals('list');
    assert.match(listed.stdout, new RegExp(`${id} +pending .*button "Pay".*irreversible_name`));
    assert.equal(backend.performed, 0);
    const approved = await approvals('approve', id);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, /Approved: .* used|Approved: .* approved/);
    assert.equal((await first).status, 200);
    assert.equal(backend.performed, 1);
    const again = await approvals('approve', id);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /approval_already_decided/);

    const second = gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_click`, {
      body: { ref: '@e1' },
    });
    const [next] = await waitFor(async () => ((await pendingIds()).length > 0 ? pendingIds() : null), {
      what: 'the second approval',
    });
    assert.ok(next);
    assert.equal((await approvals('deny', next)).code, 0);
    assert.equal((await second).body.error.code, 'approval_denied');
    assert.equal(backend.performed, 1);
    const unknown = await approvals('deny', 'apr_unknown');
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /approval_not_found/);
    const all = await approvals('list', '--all');
    assert.match(all.stdout, new RegExp(`${next} +denied .* by owner via cli`));
  });

  it("ends a waiting call on the owner's Stop and withdraws its approval: nothing happens", async () => {
    const sessionId = await gw.createSession();
    const before = backend.performed;
    const waiting = gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_click`, {
      body: { ref: '@e1' },
    });
    const [id] = await waitFor(async () => ((await pendingIds()).length > 0 ? pendingIds() : null), {
      what: 'the approval',
    });
    assert.ok(id);
    const asOwner = { authorization: `Bearer ${gw.operatorKey}` };
    assert.equal(
      (await gw.request('POST', `/v1/sessions/${sessionId}/stop`, { headers: asOwner })).status,
      200,
    );
    assert.equal((await waiting).body.error.code, 'session_stopped_by_owner');
    await waitFor(
      async () =>
        (await gw.request('GET', `/v1/approvals/${id}`, { headers: asOwner })).body.approval.status ===
        'expired',
      { what: 'the approval to be withdrawn' },
    );
    const late = await gw.request('POST', `/v1/approvals/${id}/approve`, { headers: asOwner });
    assert.equal(late.body.error.code, 'approval_expired');
    assert.equal(backend.performed, before);
  });

  it('tells an MCP client that its call waits, with progress notifications, until the owner decides', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(gw.url + '/mcp'), {
      requestInit: { headers: { authorization: `Bearer ${gw.key}` } },
    });
    const client = new Client({ name: 'tabgate-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const progress: string[] = [];
      const before = backend.performed;
      const calling = client.callTool(
        { name: 'browser_click', arguments: { ref: '@e1' } },
        CallToolResultSchema,
        {
          onprogress: (p) => progress.push(p.message ?? ''),
          timeout: 60_000,
        },
      );
      await waitFor(() => progress.length > 0, { what: 'a progress notification' });
      assert.match(progress[0] ?? '', /Waiting for the owner to approve: click @e1 button "Pay"/);
      const [id] = await pendingIds();
      assert.ok(id);
      assert.equal(backend.performed, before);
      await gw.request('POST', `/v1/approvals/${id}/approve`, {
        headers: { authorization: `Bearer ${gw.operatorKey}` },
      });
      const result = await calling;
      assert.notEqual(result.isError, true, JSON.stringify(result));
      assert.equal(backend.performed, before + 1);

      const quick = await client.callTool({ name: 'browser_click', arguments: { ref: '@e1', wait: false } });
      assert.equal(quick.isError, true);
      const text = (quick.content as { text: string }[])[0]?.text ?? '';
      assert.match(text, /^Error approval_required: Nothing was done: .* \(approval apr_[\w-]+, until /);
      assert.match(text, /browser_approval_status/);
      assert.equal(backend.performed, before + 1);
    } finally {
      await client.close();
    }
  });
});
