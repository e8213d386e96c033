/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The broker's rules as a user meets them (tickets, fail closed, exactly-once, timeout and cancel,
 * deferred cancels on reconnect, replacement), written once and run on any topology: one embedded
 * gateway playing every part, or a cluster where each step goes through a different node (register on
 * A, socket on B, call on C, reconnect on D).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { TICKET_SUBPROTOCOL_PREFIX } from '../../src/protocol/index.js';
import { waitFor } from '../helpers/wait-for.js';
import {
  register,
  tabsAnswer,
  TestController,
  ticketProtocols,
  upgradeAnswer,
  type Frame,
} from '../gateway/fixtures/controller.js';
import type { HttpResult, TestGateway } from '../gateway/fixtures/gateway.js';

export interface Topology {
  /** Where controllers register and sessions are created. */
  register: TestGateway;
  /** Where controllers open their socket. */
  upgrade: TestGateway;
  /** Where agents call. */
  call: TestGateway;
  /** Where a controller reconnects. */
  reconnect: TestGateway;
}

const COMMAND = 'browser.controller.command';
const CANCEL = 'browser.controller.cancel';

export function callTool(gw: TestGateway, sessionId: string, tool = 'browser_tabs', args: unknown = {}) {
  return gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body: args });
}

/**
 * The first call to a controller that has just opened its socket, answered by `answer`. No waiting
 * first: a node answers the handshake only once the lane is routable from every node.
 */
export async function firstCall(
  gw: TestGateway,
  sessionId: string,
  answer: () => Promise<void>,
  tool = 'browser_tabs',
): Promise<HttpResult> {
  const [result] = await Promise.all([callTool(gw, sessionId, tool), answer()]);
  return result;
}

/**
 * `firstCall`'s answer when the call's outcome is what the test watches: the first command, if one
 * arrives within 2 s, is answered ok with an empty tab list.
 */
export function answerFirstCommand(controller: TestController): () => Promise<void> {
  return async () => {
    const command = await controller.next(COMMAND, 2000).catch(() => undefined);
    if (command) controller.result(command.params.command_id, true, tabsAnswer(''));
  };
}

/** Answers the next command with ok and a result that names its own command id. */
async function answerNext(controller: TestController): Promise<Frame> {
  const command = await controller.next(COMMAND, 2000);
  controller.result(command.params.command_id, true, tabsAnswer(String(command.params.command_id)));
  return command;
}

/**
 * A controller serving a new session across the topology (registered on one node, its socket on
 * another), once a first call through the calling node has reached it.
 */
async function servingController(
  t: Topology,
  capabilities?: string[],
): Promise<{ sessionId: string; controller: TestController }> {
  const sessionId = await t.register.createSession();
  const controller = await TestController.open(
    t.upgrade,
    await register(t.register, { sessionId, ...(capabilities ? { capabilities } : {}) }),
  );
  await firstCall(t.call, sessionId, async () => void (await answerNext(controller).catch(() => undefined)));
  return { sessionId, controller };
}

export function brokerConformance(topology: () => Topology): void {
  it('a call reaches the controller exactly once and its result returns to the caller', async () => {
    const t = topology();
    const sessionId = await t.register.createSession();
    const controller = await TestController.open(t.upgrade, await register(t.register, { sessionId }));
    let sent: Frame | undefined;
    const result = await firstCall(t.call, sessionId, async () => {
      sent = await answerNext(controller).catch(() => undefined);
    });
    assert.equal(result.status, 200, JSON.stringify(result.body));
    assert.ok(sent);
    assert.match(JSON.stringify(result.body), new RegExp(String(sent.params.command_id)));
    await controller.nothing(COMMAND);
    assert.equal(controller.history.filter((m) => m === COMMAND).length, 1);
    await controller.close();
  });

  it('a ticket opens one socket only, on whichever node it is presented', async () => {
    const t = topology();
    const sessionId = await t.register.createSession();
    const ticket = await register(t.register, { sessionId });
    const [first, second] = await Promise.all([
      upgradeAnswer(t.upgrade, { protocols: ticketProtocols(ticket) }),
      upgradeAnswer(t.reconnect, { protocols: ticketProtocols(ticket) }),
    ]);
    assert.deepEqual([first.status, second.status].sort(), [101, 401]);
  });

  it('a refused upgrade leaves its ticket usable on another node', async () => {
    const t = topology();
    const sessionId = await t.register.createSession();
    const ticket = await register(t.register, { sessionId });
    const refused = await upgradeAnswer(t.upgrade, { protocols: [TICKET_SUBPROTOCOL_PREFIX + ticket] });
    assert.equal(refused.code, 'invalid_ticket');
    const controller = await TestController.open(t.reconnect, ticket);
    await controller.close();
  });

  it('fails closed with controller_unavailable once the registered controller is offline', async () => {
    const t = topology();
    const { sessionId, controller } = await servingController(t);
    await controller.close();
    const result = await waitFor(
      async () => {
        const r = await callTool(t.call, sessionId);
        return r.status === 503 ? r : null;
      },
      { what: 'the call to be refused' },
    );
    assert.equal(result.body.error.code, 'controller_unavailable');
  });

  it('refuses a tool the controller was not granted, sending it nothing', async () => {
    const t = topology();
    const { sessionId, controller } = await servingController(t, ['browser_tabs']);
    const result = await callTool(t.call, sessionId, 'browser_console');
    assert.equal(result.status, 503);
    assert.equal(result.body.error.code, 'controller_unavailable');
    await controller.nothing(COMMAND);
    await controller.close();
  });

  it('passes a controller’s refusal back as controller_rejected', async () => {
    const t = topology();
    const sessionId = await t.register.createSession();
    const controller = await TestController.open(t.upgrade, await register(t.register, { sessionId }));
    const result = await firstCall(t.call, sessionId, async () => {
      const command = await controller.next(COMMAND, 2000).catch(() => undefined);
      if (command) controller.result(command.params.command_id, false, { code: 'no_tab', message: 'no tab' });
    });
    assert.equal(result.status, 502);
    assert.equal(result.body.error.code, 'controller_rejected');
    await controller.close();
  });

  it('times a silent controller out, cancels after the command, and ignores its late result', async () => {
    const t = topology();
    const { sessionId, controller } = await servingController(t);
    const call = callTool(t.call, sessionId);
    const command = await controller.next(COMMAND, 3000);
    const result = await call;
    assert.equal(result.status, 504);
    assert.equal(result.body.error.code, 'controller_timeout');
    const cancel = await controller.next(CANCEL, 3000);
    assert.equal(cancel.params.command_id, command.params.command_id);
    assert.deepEqual(controller.history.filter((m) => m === COMMAND || m === CANCEL).slice(-2), [
      COMMAND,
      CANCEL,
    ]);
    controller.result(command.params.command_id, true, {});
    // The next call is answered on its own, not by the late result.
    const next = callTool(t.call, sessionId);
    const second = await answerNext(controller);
    const answered = await next;
    assert.equal(answered.status, 200);
    assert.match(JSON.stringify(answered.body), new RegExp(String(second.params.command_id)));
    await controller.close();
  });

  it('sends deferred cancels to a controller that reconnects elsewhere before any new command', async () => {
    const t = topology();
    const sessionId = await t.register.createSession();
    const first = await TestController.open(t.upgrade, await register(t.register, { sessionId }));
    await firstCall(t.call, sessionId, async () => void (await answerNext(first).catch(() => undefined)));
    const call = callTool(t.call, sessionId);
    const command = await first.next(COMMAND, 3000);
    await first.close();
    assert.equal((await call).body.error.code, 'controller_timeout');
    const again = await TestController.open(t.reconnect, await register(t.register, { sessionId }));
    const cancel = await again.next(CANCEL, 3000);
    assert.equal(cancel.params.command_id, command.params.command_id);
    const result = await firstCall(
      t.call,
      sessionId,
      async () => void (await answerNext(again).catch(() => undefined)),
    );
    assert.equal(result.status, 200);
    assert.equal(again.history[0], CANCEL, 'the deferred cancel came first');
    await again.close();
  });

  it('a new controller in the lane replaces the old: its pending call is cancelled and nothing more reaches it', async () => {
    const t = topology();
    const sessionId = await t.register.createSession();
    const old = await TestController.open(
      t.upgrade,
      await register(t.register, { sessionId, controllerId: 'old' }),
    );
    await firstCall(t.call, sessionId, async () => void (await answerNext(old).catch(() => undefined)));
    const pending = callTool(t.call, sessionId);
    await old.next(COMMAND, 3000);
    const replacement = await TestController.open(
      t.reconnect,
      await register(t.register, { sessionId, controllerId: 'new' }),
    );
    const cancelled = await pending;
    assert.equal(cancelled.body.error.code, 'controller_cancelled');
    const result = await firstCall(
      t.call,
      sessionId,
      async () => void (await answerNext(replacement).catch(() => undefined)),
    );
    assert.equal(result.status, 200);
    await old.nothing(COMMAND);
    await old.close();
    await replacement.close();
  });
}
