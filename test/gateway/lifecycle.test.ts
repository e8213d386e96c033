/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument -- tests read JSON bodies */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tabsAnswer, TestController } from './fixtures/controller.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';

const COMMAND = 'browser.controller.command';
const CANCEL = 'browser.controller.cancel';

describe('controller lifecycle', () => {
  let gw: TestGateway;
  before(async () => {
    // A short deadline so timeouts happen within the test; the rules do not depend on its length.
    gw = await startTestGateway({
      config: { browser: { extension_control: { enabled: true, command_timeout: 0.4 } } },
    });
  });
  after(() => gw.close());

  const call = (sessionId: string, tool = 'browser_tabs', init: { signal?: AbortSignal } = {}) =>
    fetch(`${gw.url}/v1/sessions/${sessionId}/tools/${tool}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${gw.key}`,
        'content-type': 'application/json',
        'x-tool-call-id': 'tc',
      },
      body: '{}',
      signal: init.signal,
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  it('completes a command started on the old socket with a result sent on the reconnected one', async () => {
    const sessionId = await gw.createSession();
    const first = await TestController.connect(gw, { sessionId });
    const pending = call(sessionId);
    const command = await first.next(COMMAND);
    await first.close();
    const second = await TestController.connect(gw, { sessionId });
    second.result(command.params.command_id, true, tabsAnswer('from new socket'));
    assert.deepEqual((await pending).body, { ok: true, result: tabsAnswer('from new socket') });
    await second.close();
  });

  it('flushes cancels of commands that timed out offline before routing new work', async () => {
    const sessionId = await gw.createSession();
    const first = await TestController.connect(gw, { sessionId });
    const pending = call(sessionId);
    const command = await first.next(COMMAND);
    await first.close();
    const timedOut = await pending;
    assert.equal(timedOut.status, 504);
    assert.equal(timedOut.body.error.code, 'controller_timeout');
    const second = await TestController.connect(gw, { sessionId });
    const fresh = call(sessionId);
    const next = await second.next(COMMAND);
    assert.deepEqual(second.history.slice(0, 2), [CANCEL, COMMAND]);
    const cancel = await second.next(CANCEL);
    assert.deepEqual(cancel.params, { command_id: command.params.command_id, tool_call_id: 'tc' });
    second.result(next.params.command_id, true, tabsAnswer('fresh'));
    assert.equal((await fresh).body.result.tabs[0].title, 'fresh');
    await second.close();
  });

  it('ignores a detach from a stale socket and keeps the newer one working', async () => {
    const sessionId = await gw.createSession();
    const stale = await TestController.connect(gw, { sessionId });
    const live = await TestController.connect(gw, { sessionId });
    stale.send({ method: 'browser.controller.detach', params: {} });
    await stale.nothing('browser.controller.detach');
    const pending = call(sessionId);
    const command = await live.next(COMMAND);
    live.result(command.params.command_id, true, tabsAnswer('still bound'));
    assert.equal((await pending).body.result.tabs[0].title, 'still bound');
    await stale.close();
    // The stale socket's close does not take the live controller offline either.
    const after = call(sessionId);
    const again = await live.next(COMMAND);
    live.result(again.params.command_id, true, tabsAnswer('after stale close'));
    assert.equal((await after).body.result.tabs[0].title, 'after stale close');
    await live.close();
  });

  it('on a live detach sends cancel frames first, then fails pending work as cancelled', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    const pending = call(sessionId);
    const command = await controller.next(COMMAND);
    controller.send({ method: 'browser.controller.detach', params: {} });
    const reply = await controller.next('browser.controller.detach');
    assert.deepEqual(reply.params, { ok: true });
    const cancel = await controller.next(CANCEL);
    assert.equal(cancel.params.command_id, command.params.command_id);
    assert.deepEqual(controller.history.slice(-2), [CANCEL, 'browser.controller.detach']);
    const result = await pending;
    assert.equal(result.status, 409);
    assert.equal(result.body.error.code, 'controller_cancelled');
    assert.match(result.body.error.message, new RegExp(command.params.command_id as string));
    await controller.close();
  });

  it('on replacement cancels the old controller’s work without a frame before the new one is routable', async () => {
    const sessionId = await gw.createSession();
    const old = await TestController.connect(gw, { sessionId, controllerId: 'laptop' });
    const pending = call(sessionId);
    await old.next(COMMAND);
    const replacement = await TestController.connect(gw, { sessionId, controllerId: 'desktop' });
    const result = await pending;
    assert.equal(result.status, 409);
    assert.equal(result.body.error.code, 'controller_cancelled');
    await old.nothing(CANCEL);
    const next = call(sessionId);
    const command = await replacement.next(COMMAND);
    assert.equal(command.params.controller_id, 'desktop');
    replacement.result(command.params.command_id, true, tabsAnswer('desktop'));
    assert.equal((await next).body.result.tabs[0].title, 'desktop');
    await old.close();
    await replacement.close();
  });

  it('on timeout sends a cancel frame and ignores the late result', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    const pending = call(sessionId);
    const command = await controller.next(COMMAND);
    const result = await pending;
    assert.equal(result.status, 504);
    assert.equal(result.body.error.code, 'controller_timeout');
    const cancel = await controller.next(CANCEL);
    assert.deepEqual(cancel.params, { command_id: command.params.command_id, tool_call_id: 'tc' });
    controller.result(command.params.command_id, true, tabsAnswer('late'));
    const next = call(sessionId);
    const second = await controller.next(COMMAND);
    controller.result(second.params.command_id, true, tabsAnswer('on time'));
    assert.equal((await next).body.result.tabs[0].title, 'on time');
    await controller.close();
  });

  it('sends a cancel frame when the HTTP client goes away', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    const abort = new AbortController();
    const pending = call(sessionId, 'browser_tabs', { signal: abort.signal }).catch((e: unknown) => e);
    const command = await controller.next(COMMAND);
    abort.abort();
    await pending;
    const cancel = await controller.next(CANCEL);
    assert.equal(cancel.params.command_id, command.params.command_id);
    await controller.close();
  });

  it('cancels a bound controller’s work when its session is deleted', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    const pending = call(sessionId);
    const command = await controller.next(COMMAND);
    assert.equal((await gw.request('DELETE', `/v1/sessions/${sessionId}`)).status, 200);
    const cancel = await controller.next(CANCEL);
    assert.equal(cancel.params.command_id, command.params.command_id);
    assert.equal((await pending).body.error.code, 'controller_cancelled');
    await controller.close();
  });
});
