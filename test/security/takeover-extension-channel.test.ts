/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- tests read JSON bodies */
/**
 * The takeover on a session a paired extension serves, over raw HTTP with no browser (docs/safety.md
 * "Takeover"): the controller is sent no new command, only `browser_tabs` before and after; the
 * session's approvals list the takeover with `kind: "takeover"`; its decision key is handed out once,
 * only to the extension's token with an extension Origin; Done with that key resumes the agent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EXTENSION_ID } from '../../src/protocol/index.js';
import { tabsAnswer, type TestController } from '../gateway/fixtures/controller.js';
import { startControlledSession, type ControlledSession } from '../gateway/fixtures/controlled-session.js';
import { ENABLED_CONFIG, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { withToken } from '../extension/pairing-helpers.js';
import { waitFor } from '../helpers/wait-for.js';

const ORIGIN = `chrome-extension://${EXTENSION_ID}`;
const COMMAND = 'browser.controller.command';

describe('takeover through the extension channel (gateway routes)', () => {
  let gw: TestGateway;
  let sid: string;
  let token: string;
  let controller: TestController;
  const base = () => `/v1/browser-control/sessions/${sid}/approvals`;
  const asExtension = () => withToken(token, { origin: ORIGIN });
  /** Answers the next command, which must be browser_tabs. */
  const answerTabs = async (label: string) => {
    const command = await controller.next(COMMAND);
    assert.equal(command.params.action, 'browser_tabs');
    controller.result(command.params.command_id, true, tabsAnswer(label));
  };

  let running: ControlledSession | undefined;

  before(async () => {
    running = await startControlledSession({
      gateway: { backend: new RecordingBackend(), config: ENABLED_CONFIG },
      title: 'takeover channel',
      paired: true,
    });
    ({ gw, sessionId: sid, token, controller } = running);
  });
  after(() => running?.close());

  it('hands its key once to the extension, whose Done resumes the agent; v1 sees only browser_tabs', async () => {
    const waiting = gw.request('POST', `/v1/sessions/${sid}/tools/browser_request_takeover`, {
      body: { reason: 'Log in' },
    });
    await answerTabs('before');
    const takeover = await waitFor(
      async () => {
        const listed = await gw.request('GET', base(), { headers: asExtension() });
        return (listed.body.approvals as { kind: string; approval_id: string; summary: string }[]).find(
          (a) => a.kind === 'takeover',
        );
      },
      { what: 'the takeover in the session approvals' },
    );
    assert.equal(takeover.summary, 'Log in');
    // The extension reads this every 1.5 s while it shares a tab: its reads are logged at debug only.
    const reads = gw.logLines.filter((line) => line.includes(`path=${base()} `));
    assert.ok(reads.length > 0);
    assert.ok(
      reads.every((line) => / debug +request /.test(line)),
      reads.join('\n'),
    );
    const take = (headers: Record<string, string>) =>
      gw.request('POST', `${base()}/${takeover.approval_id}/take`, { body: {}, headers });
    const byAgent = await gw.request('POST', `${base()}/${takeover.approval_id}/take`, { body: {} });
    assert.equal(byAgent.body.error.code, 'operator_required', "the agent's API key");
    const noOrigin = await take(withToken(token));
    assert.equal(noOrigin.body.error.code, 'operator_required', 'the token without the extension Origin');
    const taken = await take(asExtension());
    assert.equal(taken.status, 200, JSON.stringify(taken.body));
    const again = await take(asExtension());
    assert.equal(again.body.error.code, 'operator_required', 'handed out once');

    const refused = await gw.request('POST', `/v1/sessions/${sid}/tools/browser_snapshot`, { body: {} });
    assert.equal(refused.body.error.code, 'takeover_pending');
    const done = await gw.request('POST', `${base()}/${takeover.approval_id}/approve`, {
      body: { decision_key: taken.body.decision_key },
      headers: asExtension(),
    });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    await answerTabs('after');
    const answer = await waiting;
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body.result, {
      done: true,
      takeover_id: takeover.approval_id,
      url: 'https://tab.example/',
      title: 'after',
    });
    assert.equal(
      controller.history.filter((method) => method === COMMAND).length,
      2,
      'two reads, nothing else',
    );
  });
});
