/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- tests read JSON bodies */
/**
 * A session once served by a user's browser stays bound to it: Stop (the controller's detach), a revoked
 * pairing, extension control switched off and a gateway restart each leave its calls failing closed —
 * the backend behind unbound sessions sees none of them — until the browser shares a tab again.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { REGISTER_PATH } from '../../src/protocol/index.js';
import { asOperator, pairedToken, withToken } from '../extension/pairing-helpers.js';
import { registrationBody, TestController } from './fixtures/controller.js';
import { makeHome, startTestGateway, type TestGateway } from './fixtures/gateway.js';
import { RecordingBackend } from './fixtures/recording-backend.js';

describe('a bound session never moves to another browser', () => {
  let gw: TestGateway;
  let backend: RecordingBackend;
  before(async () => {
    backend = new RecordingBackend();
    gw = await startTestGateway({ backend });
  });
  after(() => gw.close());

  const call = (sessionId: string, tool = 'browser_tabs', args: unknown = {}) =>
    gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body: args });

  async function boundSession(): Promise<{ sessionId: string; controller: TestController }> {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    controller.serveTabs('extension');
    const served = await call(sessionId);
    assert.equal(served.status, 200);
    assert.equal(served.body.result.tabs[0].title, 'extension');
    return { sessionId, controller };
  }

  it('answers session_stopped after the controller detaches (Stop), and the backend sees nothing', async () => {
    const { sessionId, controller } = await boundSession();
    controller.send({ method: 'browser.controller.detach', params: {} });
    await controller.next('browser.controller.detach');
    const before = backend.calls.length;
    for (const tool of ['browser_tabs', 'browser_navigate', 'browser_snapshot']) {
      const args = tool === 'browser_navigate' ? { url: 'https://example.com/' } : {};
      const result = await call(sessionId, tool, args);
      assert.equal(result.status, 409, tool);
      assert.equal(result.body.error.code, 'session_stopped', tool);
      assert.match(result.body.error.message, /stopped sharing/);
    }
    assert.equal(backend.calls.length, before);
    const record = await gw.request('GET', `/v1/sessions/${sessionId}`);
    assert.equal(record.body.binding.state, 'stopped');
    await controller.close();
  });

  it('serves the session again once the browser shares a tab with it again', async () => {
    const { sessionId, controller } = await boundSession();
    controller.send({ method: 'browser.controller.detach', params: {} });
    await controller.next('browser.controller.detach');
    assert.equal((await call(sessionId)).body.error.code, 'session_stopped');
    const again = await TestController.connect(gw, { sessionId, controllerId: 'ctrl-again' });
    again.serveTabs('extension again');
    const served = await call(sessionId);
    assert.equal(served.status, 200);
    assert.equal(served.body.result.tabs[0].title, 'extension again');
    assert.equal((await gw.request('GET', `/v1/sessions/${sessionId}`)).body.binding.state, 'bound');
    await Promise.all([controller.close(), again.close()]);
  });

  it('answers controller_unavailable after the socket drops, never the backend', async () => {
    const { sessionId, controller } = await boundSession();
    await controller.close();
    const before = backend.calls.length;
    const result = await call(sessionId, 'browser_navigate', { url: 'https://example.com/' });
    assert.equal(result.status, 503);
    assert.equal(result.body.error.code, 'controller_unavailable');
    assert.equal(backend.calls.length, before);
  });

  it('fails closed when extension control is switched off while the session is bound', async () => {
    const { sessionId, controller } = await boundSession();
    gw.writeConfig({ browser: { extension_control: { enabled: false } } });
    try {
      const before = backend.calls.length;
      const result = await call(sessionId);
      assert.equal(result.body.error.code, 'controller_unavailable');
      assert.match(result.body.error.message, /extension control is off/);
      assert.equal(backend.calls.length, before);
      // A session no browser ever served still uses the backend.
      const fresh = await gw.createSession();
      assert.equal((await call(fresh)).status, 200);
      assert.equal(backend.calls.length, before + 1);
    } finally {
      gw.writeConfig({ browser: { extension_control: { enabled: true, command_timeout: 5 } } });
      await controller.close();
    }
  });

  it('keeps failing closed when the agent deletes the bound session and creates it again by id', async () => {
    const body = { id: 'hermes:rebound', title: 'Browser', source: 'hermes_browser' };
    assert.equal((await gw.request('POST', '/api/sessions', { body })).status, 201);
    const controller = await TestController.connect(gw, { sessionId: body.id });
    controller.serveTabs('extension');
    assert.equal((await call(body.id)).body.result.tabs[0].title, 'extension');
    await controller.close();
    assert.equal((await gw.request('DELETE', `/v1/sessions/${body.id}`)).status, 200);
    assert.equal((await gw.request('POST', '/api/sessions', { body })).status, 201);
    const before = backend.calls.length;
    const result = await call(body.id);
    assert.equal(result.status, 503);
    assert.equal(result.body.error.code, 'controller_unavailable');
    assert.equal(backend.calls.length, before);
  });

  it('answers session_stopped after the pairing that served it is revoked', async () => {
    const { token, grantId } = await pairedToken(gw);
    const sessionId = await gw.createSession();
    const registered = await gw.request('POST', REGISTER_PATH, {
      body: registrationBody({ sessionId, controllerId: 'paired' }),
      headers: withToken(token),
    });
    assert.equal(registered.status, 201);
    const controller = await TestController.open(gw, registered.body.ticket as string);
    controller.serveTabs('paired extension');
    assert.equal((await call(sessionId)).body.result.tabs[0].title, 'paired extension');
    const revoked = await gw.request('DELETE', `/v1/pairings/${grantId}`, {
      headers: asOperator(gw),
    });
    assert.equal(revoked.status, 200);
    await controller.closed;
    const before = backend.calls.length;
    const result = await call(sessionId);
    assert.equal(result.status, 409);
    assert.equal(result.body.error.code, 'session_stopped');
    assert.match(result.body.error.message, /revoked/);
    assert.equal(backend.calls.length, before);
  });
});

describe('a bound session stays bound across a gateway restart', () => {
  it('fails closed after a restart until the browser registers again', async () => {
    const home = makeHome();
    try {
      const first = await startTestGateway({ home, backend: new RecordingBackend() });
      const sessionId = await first.createSession();
      const controller = await TestController.connect(first, { sessionId });
      controller.serveTabs('extension');
      await first.request('POST', `/v1/sessions/${sessionId}/tools/browser_tabs`, { body: {} });
      await first.close();
      await controller.closed;

      const backend = new RecordingBackend();
      const second = await startTestGateway({ home, backend });
      try {
        const result = await second.request('POST', `/v1/sessions/${sessionId}/tools/browser_navigate`, {
          body: { url: 'https://example.com/' },
        });
        assert.equal(result.status, 503);
        assert.equal(result.body.error.code, 'controller_unavailable');
        assert.equal(backend.calls.length, 0);
        const back = await TestController.connect(second, { sessionId });
        back.serveTabs('extension after restart');
        const served = await second.request('POST', `/v1/sessions/${sessionId}/tools/browser_tabs`, {
          body: {},
        });
        assert.equal(served.body.result.tabs[0].title, 'extension after restart');
        await back.close();
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
