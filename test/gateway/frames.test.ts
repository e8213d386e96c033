/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- tests read JSON bodies */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { GARBAGE_FRAME_LIMIT } from '../../src/gateway/ws/controller-connection.js';
import { MAX_FRAME_BYTES } from '../../src/protocol/index.js';
import { navigateAnswer, tabsAnswer, TestController } from './fixtures/controller.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';
import { startControlledSession, type ControlledSession } from './fixtures/controlled-session.js';

describe('controller frames', () => {
  let gw: TestGateway;
  let sessionId: string;
  let controller: TestController;
  const call = (tool: string, args: unknown = {}, headers?: Record<string, string>) =>
    gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body: args, headers });

  let running: ControlledSession | undefined;

  before(async () => {
    running = await startControlledSession({ gateway: { keepaliveMs: 50 } });
    ({ gw, sessionId, controller } = running);
  });
  after(() => running?.close());

  it('sends a command frame with the protocol fields and returns the result as {ok, result}', async () => {
    const pending = call('browser_navigate', { url: 'https://example.com/' }, { 'x-tool-call-id': 'tc-1' });
    const command = await controller.next('browser.controller.command');
    assert.match(command.params.command_id as string, /^[0-9a-f]{32}$/);
    assert.equal(command.params.action, 'browser_navigate');
    assert.deepEqual(command.params.arguments, { url: 'https://example.com/' });
    assert.equal(command.params.controller_id, 'ctrl-1');
    assert.equal(command.params.browser_profile_id, 'profile-1');
    assert.equal(command.params.tool_call_id, 'tc-1');
    assert.equal(typeof command.params.deadline_at, 'number');
    controller.result(command.params.command_id, true, navigateAnswer('https://example.com/'));
    const result = await pending;
    assert.equal(result.status, 200);
    assert.deepEqual(result.body, { ok: true, result: navigateAnswer('https://example.com/') });
  });

  it('treats only the literal ok: true as success', async () => {
    for (const ok of ['true', 1, undefined, false]) {
      const pending = call('browser_tabs');
      const command = await controller.next('browser.controller.command');
      controller.send({
        method: 'browser.controller.result',
        params: {
          command_id: command.params.command_id,
          ok,
          result: { tabs: [] },
          error: { code: 'nope', message: 'no' },
        },
      });
      const result = await pending;
      assert.equal(result.status, 502, String(ok));
      assert.equal(result.body.error.code, 'controller_rejected');
      assert.match(result.body.error.message, /controller rejected command '[0-9a-f]{32}': nope: no/);
    }
  });

  it('ignores unknown, duplicate and malformed results and completes with the first real one', async () => {
    const pending = call('browser_tabs');
    const command = await controller.next('browser.controller.command');
    controller.result('f'.repeat(32), true, { wrong: true });
    controller.send('not json');
    controller.send({ method: 'browser.controller.result', params: [] });
    controller.send({ method: 'browser.controller.nope', params: {} });
    controller.result(command.params.command_id, true, { tabs: [] });
    controller.result(command.params.command_id, true, { duplicate: true });
    assert.deepEqual((await pending).body.result, { tabs: [] });
    // The socket is still healthy: another call round-trips.
    const next = call('browser_tabs');
    const second = await controller.next('browser.controller.command');
    controller.result(second.params.command_id, true, tabsAnswer('second'));
    assert.equal((await next).body.result.tabs[0].title, 'second');
  });

  it('answers a controller heartbeat with the same nonce and ok: true', async () => {
    controller.send({ method: 'browser.controller.heartbeat', params: { nonce: 'n-42' } });
    let echo = await controller.next('browser.controller.heartbeat');
    while (echo.params.nonce !== 'n-42') echo = await controller.next('browser.controller.heartbeat');
    assert.deepEqual(echo.params, { nonce: 'n-42', ok: true });
  });

  it('sends server keepalive heartbeats with a server-keepalive nonce', async () => {
    let beat = await controller.next('browser.controller.heartbeat');
    while (beat.params.nonce === 'n-42') beat = await controller.next('browser.controller.heartbeat');
    assert.match(beat.params.nonce as string, /^server-keepalive-\d+$/);
    assert.equal(beat.params.ok, true);
  });
});

describe('hostile controller sockets', () => {
  let gw: TestGateway;
  let sessionId: string;
  before(async () => {
    gw = await startTestGateway();
    sessionId = await gw.createSession();
  });
  after(() => gw.close());

  it('closes a socket that keeps sending garbage with 1008', async () => {
    const controller = await TestController.connect(gw, { sessionId });
    for (let i = 0; i < GARBAGE_FRAME_LIMIT; i++) controller.send(`garbage ${i}`);
    assert.equal((await controller.closed).code, 1008);
  });

  it('closes a socket that sends a frame over 8 MiB with 1009', async () => {
    const controller = await TestController.connect(gw, { sessionId });
    controller.ws.on('error', () => undefined);
    controller.ws.send(Buffer.alloc(MAX_FRAME_BYTES + 1, 0x20), { binary: false });
    assert.equal((await controller.closed).code, 1009);
    assert.equal(controller.ws.readyState, WebSocket.CLOSED);
  });
});
