/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The gateway's side of the extension's approval channel (docs/safety.md "On the user's tab"), over raw
 * HTTP with no browser: only the paired extension's token opens and claims an approval; a decision needs
 * that token, an extension Origin and the key the gateway handed to the worker that opened it; a claim
 * uses an approved approval once; Stop and Resume are the dashboard's session state.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EXTENSION_ID } from '../../src/protocol/index.js';
import { startControlledSession, type ControlledSession } from '../gateway/fixtures/controlled-session.js';
import { ENABLED_CONFIG, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { withToken } from '../extension/pairing-helpers.js';
import { PLACE_ORDER_ASK as ASK } from '../gateway/fixtures/approval-ask.js';

const ORIGIN = `chrome-extension://${EXTENSION_ID}`;

describe("the extension's approval channel (gateway routes)", () => {
  let gw: TestGateway;
  let sid: string;
  let token: string;
  const base = () => `/v1/browser-control/sessions/${sid}/approvals`;
  const asExtension = (extra: Record<string, string> = {}) => withToken(token, { origin: ORIGIN, ...extra });
  const open = async () => {
    const opened = await gw.request('POST', base(), { body: ASK, headers: asExtension() });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    return { id: opened.body.approval.approval_id as string, key: opened.body.decision_key as string };
  };
  const claim = (id: string) =>
    gw.request('POST', `${base()}/${id}/claim`, { body: {}, headers: asExtension() });

  let running: ControlledSession | undefined;

  before(async () => {
    // The socket binds the session to this browser: from then on the extension serves it.
    running = await startControlledSession({
      gateway: { backend: new RecordingBackend(), config: ENABLED_CONFIG },
      title: 'extension channel',
      paired: true,
    });
    ({ gw, sessionId: sid, token } = running);
  });
  after(() => running?.close());

  it("refuses the agent's API key on every route of the channel", async () => {
    const { id, key } = await open();
    for (const [path, body] of [
      [base(), ASK],
      [`${base()}/${id}/claim`, {}],
      [`${base()}/${id}/approve`, { decision_key: key }],
      [`/v1/browser-control/sessions/${sid}/stop`, {}],
    ] as const) {
      const result = await gw.request('POST', path, { body });
      assert.equal(result.status, 403, `${path}: ${JSON.stringify(result.body)}`);
      assert.equal(result.body.error.code, 'operator_required');
    }
    assert.equal((await gw.request('GET', base())).status, 403);
  });

  it('counts a decision only with the extension Origin and the key given to its opener', async () => {
    const { id, key } = await open();
    const noOrigin = await gw.request('POST', `${base()}/${id}/approve`, {
      body: { decision_key: key },
      headers: withToken(token),
    });
    assert.equal(noOrigin.status, 403);
    const wrongKey = await gw.request('POST', `${base()}/${id}/approve`, {
      body: { decision_key: `${key.slice(0, -1)}x` },
      headers: asExtension(),
    });
    assert.equal(wrongKey.status, 403);
    const listed = await gw.request('GET', base(), { headers: asExtension() });
    assert.doesNotMatch(JSON.stringify(listed.body), new RegExp(key));
    assert.equal(listed.body.approvals[0].approval_id, id);
    const approved = await gw.request('POST', `${base()}/${id}/approve`, {
      body: { decision_key: key },
      headers: asExtension(),
    });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.approval.channel, 'extension');
    assert.ok(approved.body.approval.decided_at);
    const audit = await gw.request('GET', `/v1/audit?session=${sid}&limit=1000`);
    const row = (audit.body.entries as { action: string; arguments: { channel?: string } }[]).find(
      (entry) => entry.action === 'approval.approve',
    );
    assert.equal(row?.arguments.channel, 'extension');
  });

  it('uses an approved approval with the first claim only', async () => {
    const { id, key } = await open();
    const waiting = claim(id);
    await gw.request('POST', `${base()}/${id}/approve`, {
      body: { decision_key: key },
      headers: asExtension(),
    });
    assert.equal((await waiting).body.outcome, 'approved');
    assert.equal((await claim(id)).body.outcome, 'used');
    const again = await gw.request('POST', `${base()}/${id}/approve`, {
      body: { decision_key: key },
      headers: asExtension(),
    });
    assert.equal(again.status, 403, 'the key went with the decision');
  });

  it('answers a denied claim as denied, and a withdrawn one as expired', async () => {
    const denied = await open();
    await gw.request('POST', `${base()}/${denied.id}/deny`, {
      body: { decision_key: denied.key },
      headers: asExtension(),
    });
    assert.equal((await claim(denied.id)).body.outcome, 'denied');
    const withdrawn = await open();
    await gw.request('POST', `${base()}/${withdrawn.id}/withdraw`, { body: {}, headers: asExtension() });
    assert.equal((await claim(withdrawn.id)).body.outcome, 'expired');
  });

  it("Stop from the extension sets the dashboard's stop state and withdraws what waits; Resume lifts it", async () => {
    const { id } = await open();
    const bare = await gw.request('POST', `/v1/browser-control/sessions/${sid}/stop`, {
      body: {},
      headers: withToken(token),
    });
    assert.equal(bare.status, 403, 'not from the extension');
    const stopped = await gw.request('POST', `/v1/browser-control/sessions/${sid}/stop`, {
      body: {},
      headers: asExtension(),
    });
    assert.equal(stopped.status, 200, JSON.stringify(stopped.body));
    assert.ok(stopped.body.stopped_at);
    assert.equal((await claim(id)).body.outcome, 'expired');
    const refused = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_snapshot`, { body: {} });
    assert.equal(refused.body.error.code, 'session_stopped_by_owner');
    const listed = await gw.request('GET', base(), { headers: asExtension() });
    assert.equal(listed.body.stopped, true);
    const resumed = await gw.request('POST', `/v1/browser-control/sessions/${sid}/resume`, {
      body: {},
      headers: asExtension(),
    });
    assert.equal(resumed.status, 200);
    assert.equal(resumed.body.stopped_at, null);
  });
});
