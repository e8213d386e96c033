/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * Approvals on the user's tab through a controller that has no channel to ask the person: one the API
 * key registered (a generic protocol-v1 controller), not the owner's paired tabgate extension, which
 * asks in its popup (test/extension/approvals.e2e.test.ts). Every class is on there by default, so what
 * the gateway can tell needs an approval — a dialog accepted, a vault secret typed — is refused with
 * `approval_unavailable` before the controller hears of it, never performed unapproved; the owner may
 * turn the classes off for the user's tab.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { CONTROLLER_CAPABILITIES, EXTENDED_CONTROLLER_CAPABILITIES } from '../../src/protocol/index.js';
import { startControlledSession, type ControlledSession } from '../gateway/fixtures/controlled-session.js';
import { ENABLED_CONFIG, startTestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';

const COMMAND = 'browser.controller.command';
const CAPABILITIES = [...CONTROLLER_CAPABILITIES, ...EXTENDED_CONTROLLER_CAPABILITIES];

describe("approvals on the user's tab, through a controller that cannot ask", () => {
  const started: ControlledSession[] = [];
  after(async () => {
    for (const running of started) await running.close();
  });
  const start = async (safety?: Record<string, unknown>) => {
    const running = await startControlledSession({
      gateway: {
        backend: new RecordingBackend(),
        config: { ...ENABLED_CONFIG, ...(safety ? { safety } : {}) },
      },
      capabilities: CAPABILITIES,
    });
    started.push(running);
    const { gw, sessionId } = running;
    const call = (tool: string, body: unknown) =>
      gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body });
    return { ...running, call };
  };

  it('refuses accepting a dialog with approval_unavailable, sending nothing', async () => {
    const { controller, call } = await start();
    for (const [tool, args] of [
      ['browser_dialog', { action: 'accept' }],
      ['browser_dialog', { action: 'accept', wait: false }],
    ] as const) {
      const result = await call(tool, args);
      assert.equal(result.status, 403, JSON.stringify(result.body));
      assert.equal(result.body.error.code, 'approval_unavailable');
      assert.match(String(result.body.error.message), /nothing was done/);
    }
    await controller.nothing(COMMAND);
    await controller.close();
  });

  it('passes what needs no approval (a dismissed dialog), without the gateway-only `wait` field', async () => {
    const { controller, call } = await start();
    const pending = call('browser_dialog', { action: 'dismiss', wait: false });
    const command = await controller.next(COMMAND);
    assert.deepEqual(command.params.arguments, { action: 'dismiss' });
    controller.result(command.params.command_id, true, { handled: 'confirm "x"', accepted: false });
    assert.equal((await pending).status, 200);
    await controller.close();
  });

  it("lets the owner turn the classes off for the user's tab (safety.approvals.user_tab: none)", async () => {
    const { controller, call } = await start({ approvals: { user_tab: 'none' } });
    const pending = call('browser_dialog', { action: 'accept' });
    const command = await controller.next(COMMAND);
    controller.result(command.params.command_id, true, { handled: 'confirm "x"', accepted: true });
    assert.equal((await pending).status, 200);
    await controller.close();
  });

  it('refuses every input when per-action origins are listed: the gateway cannot see the origin', async () => {
    const { controller, call } = await start({ approvals: { per_action_origins: ['https://bank.example'] } });
    const result = await call('browser_click', { ref: '@e1' });
    assert.equal(result.body.error.code, 'approval_unavailable');
    await controller.nothing(COMMAND);
    await controller.close();
  });

  it('stops the gateway on a malformed approvals block rather than running permissive', async () => {
    await assert.rejects(
      startTestGateway({ config: { safety: { approvals: { local: ['click_everything'] } } } }),
      /approvals/,
    );
    await assert.rejects(
      startTestGateway({ config: { safety: { approvals: { per_action_origins: ['bank.example/path'] } } } }),
      /per_action_origins/,
    );
    await assert.rejects(
      startTestGateway({ config: { safety: { approval_timeout_s: 0 } } }),
      /approval_timeout_s/,
    );
  });
});
