/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * An approval the user's tab waits for is bounded by `safety.approval_timeout_s`, not by the controller's
 * command deadline (docs/safety.md "On the user's tab"): a controller of the owner's paired extension
 * that asks for an approval keeps its command alive past the 30 s deadline, and a decision nobody made
 * in time reaches the agent as `approval_timeout` with the approval's id. Time runs on a manual clock.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EXTENSION_ID } from '../../src/protocol/index.js';
import { ManualClock, settledNow } from '../helpers/manual-clock.js';
import { withToken } from '../extension/pairing-helpers.js';
import { catalogAnswer, type TestController } from './fixtures/controller.js';
import { startControlledSession, type ControlledSession } from './fixtures/controlled-session.js';
import type { HttpResult, TestGateway } from './fixtures/gateway.js';
import { RecordingBackend } from './fixtures/recording-backend.js';
import { PLACE_ORDER_ASK as ASK } from './fixtures/approval-ask.js';

const ORIGIN = `chrome-extension://${EXTENSION_ID}`;
const COMMAND_TIMEOUT_S = 30;
const APPROVAL_TIMEOUT_S = 60;

describe("the user's tab waits for the person as long as the approval does", () => {
  const clock = new ManualClock();
  let gw: TestGateway;
  let sid: string;
  let token: string;
  let controller: TestController;
  const asExtension = () => withToken(token, { origin: ORIGIN });
  const approvals = () => `/v1/browser-control/sessions/${sid}/approvals`;
  const click = () => gw.request('POST', `/v1/sessions/${sid}/tools/browser_click`, { body: { ref: '@e3' } });
  /** As the extension does for a held click: the command arrives, the extension asks the gateway. */
  const commandThatAsks = async () => {
    const command = await controller.next('browser.controller.command');
    const opened = await gw.request('POST', approvals(), { body: ASK, headers: asExtension() });
    assert.equal(opened.status, 201, JSON.stringify(opened.body));
    return { command, approvalId: opened.body.approval.approval_id as string };
  };

  let running: ControlledSession | undefined;

  before(async () => {
    running = await startControlledSession({
      title: 'approval deadlines',
      paired: true,
      gateway: {
        backend: new RecordingBackend(),
        clock,
        config: {
          browser: { extension_control: { enabled: true, command_timeout: COMMAND_TIMEOUT_S } },
          safety: { approval_timeout_s: APPROVAL_TIMEOUT_S },
        },
      },
    });
    ({ gw, sessionId: sid, token, controller } = running);
  });
  after(() => running?.close());

  it("tells the extension it may wait the approval's timeout on top of the command's", async () => {
    const running = click();
    const command = await controller.next('browser.controller.command');
    assert.equal(
      command.params.deadline_at,
      clock.now() + (COMMAND_TIMEOUT_S + APPROVAL_TIMEOUT_S) * 1000,
      'a command that may wait for the person',
    );
    controller.result(command.params.command_id, true, catalogAnswer('browser_click'));
    assert.equal((await running).status, 200);
    const snapshot = gw.request('POST', `/v1/sessions/${sid}/tools/browser_snapshot`, { body: {} });
    const read = await controller.next('browser.controller.command');
    assert.equal(read.params.deadline_at, clock.now() + COMMAND_TIMEOUT_S * 1000, 'one that never waits');
    controller.result(read.params.command_id, true, catalogAnswer('browser_snapshot'));
    assert.equal((await snapshot).status, 200);
  });

  it('lets an answer 40 s into the wait through, not controller_timeout', async () => {
    const running = click();
    const { command, approvalId } = await commandThatAsks();
    clock.advance(40_000);
    assert.equal(await settledNow(running), false, 'past the 30 s command deadline, still waiting');
    await controller.nothing('browser.controller.cancel');
    const approved = await gw.request('POST', `/v1/approvals/${approvalId}/approve`, {
      body: {},
      headers: { authorization: `Bearer ${gw.operatorKey}` },
    });
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    controller.result(command.params.command_id, true, catalogAnswer('browser_click'));
    const result: HttpResult = await running;
    assert.equal(result.status, 200, JSON.stringify(result.body));
  });

  it('still ends a command that waits past its moved deadline with controller_timeout', async () => {
    const running = click();
    const { command } = await commandThatAsks();
    clock.advance((COMMAND_TIMEOUT_S + APPROVAL_TIMEOUT_S) * 1000);
    const cancel = await controller.next('browser.controller.cancel');
    assert.equal(cancel.params.command_id, command.params.command_id);
    const result = await running;
    assert.equal(result.body.error.code, 'controller_timeout', JSON.stringify(result.body));
  });

  it('answers approval_timeout, with the approval, when nobody decides within approval_timeout_s', async () => {
    const running = click();
    const { command, approvalId } = await commandThatAsks();
    const claim = gw.request('POST', `${approvals()}/${approvalId}/claim`, {
      body: {},
      headers: asExtension(),
    });
    clock.advance(APPROVAL_TIMEOUT_S * 1000 + 1);
    assert.equal((await claim).body.outcome, 'expired');
    await controller.nothing('browser.controller.cancel');
    controller.result(command.params.command_id, false, {
      code: 'approval_timeout',
      message: 'Nobody approved it in time; nothing was done.',
    });
    const result = await running;
    assert.equal(result.status, 409, JSON.stringify(result.body));
    assert.equal(result.body.error.code, 'approval_timeout');
    assert.equal(result.body.error.approval_id, approvalId);
  });
});
