/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-argument -- tests read JSON bodies */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createInMemoryBroker } from '../../src/gateway/broker/index.js';
import { decideRoute } from '../../src/gateway/router/route.js';
import { silentLogger } from '../../src/log/logger.js';
import { navigateAnswer, tabsAnswer, TestController } from './fixtures/controller.js';
import { ENABLED_CONFIG, startTestGateway, type TestGateway } from './fixtures/gateway.js';
import { RecordingBackend } from './fixtures/recording-backend.js';

const COMMAND = 'browser.controller.command';

describe('fail-closed routing', () => {
  let gw: TestGateway;
  let backend: RecordingBackend;
  before(async () => {
    backend = new RecordingBackend();
    gw = await startTestGateway({ backend });
  });
  after(() => gw.close());

  const call = (sessionId: string, tool: string, args: unknown = {}) =>
    gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body: args });

  it('sends a call to the backend when nothing ever registered for the lane', async () => {
    const sessionId = await gw.createSession();
    const before = backend.calls.length;
    assert.equal((await call(sessionId, 'browser_tabs')).status, 200);
    assert.equal(backend.calls.length, before + 1);
  });

  it('fails with controller_unavailable, never the backend, when the bound controller is offline', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    await controller.close();
    const before = backend.calls.length;
    const result = await call(sessionId, 'browser_tabs');
    assert.equal(result.status, 503);
    assert.equal(result.body.error.code, 'controller_unavailable');
    assert.equal(backend.calls.length, before);
  });

  it('fails with controller_unavailable when the controller lacks the capability', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId, capabilities: ['browser_snapshot'] });
    const before = backend.calls.length;
    for (const tool of ['browser_click', 'browser_console']) {
      const args = tool === 'browser_click' ? { ref: '@e1' } : {};
      const result = await call(sessionId, tool, args);
      assert.equal(result.body.error.code, 'controller_unavailable', tool);
      assert.match(result.body.error.message, new RegExp(`cannot execute ${tool}`));
    }
    assert.equal(backend.calls.length, before);
    await controller.close();
  });

  it('refuses routing-steering arguments and metadata URLs before anything reaches the controller', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    for (const [tool, args] of [
      ['browser_snapshot', { targetId: 'x' }],
      ['browser_click', { ref: '@e1', frame_id: 'f' }],
      ['browser_navigate', { url: 'http://169.254.169.254/latest/meta-data/' }],
      ['browser_navigate', { url: 'http://metadata.google.internal/' }],
    ] as const) {
      const result = await call(sessionId, tool, args);
      assert.equal(result.status, 503, tool);
      assert.equal(result.body.error.code, 'controller_unavailable');
      assert.match(result.body.error.message, new RegExp(`unsafe ${tool} arguments`));
    }
    await controller.nothing(COMMAND);
    await controller.close();
  });

  it('lets a private (not metadata) address through to the controller', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    const pending = call(sessionId, 'browser_navigate', { url: 'http://10.0.0.9/' });
    const command = await controller.next(COMMAND);
    controller.result(command.params.command_id, true, navigateAnswer('http://10.0.0.9/'));
    assert.equal((await pending).status, 200);
    await controller.close();
  });

  it('never tries the backend once the controller rejected the call', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    const before = backend.calls.length;
    const pending = call(sessionId, 'browser_snapshot');
    const command = await controller.next(COMMAND);
    controller.result(command.params.command_id, false, {
      code: 'debugger_conflict',
      message: 'another debugger',
    });
    const result = await pending;
    assert.equal(result.status, 502);
    assert.equal(result.body.error.code, 'controller_rejected');
    assert.match(result.body.error.message, /debugger_conflict: another debugger/);
    assert.equal(result.body.error.controller_code, 'debugger_conflict');
    assert.equal(backend.calls.length, before);
    await controller.close();
  });

  it("answers the user's tab's approval outcomes with the codes every other browser answers", async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    for (const [code, status] of [
      ['approval_denied', 403],
      ['approval_timeout', 409],
    ] as const) {
      const pending = call(sessionId, 'browser_click', { ref: '@e1' });
      const command = await controller.next(COMMAND);
      controller.result(command.params.command_id, false, { code, message: 'nothing was done' });
      const result = await pending;
      assert.equal(result.status, status, JSON.stringify(result.body));
      assert.equal(result.body.error.code, code);
      assert.equal(result.body.error.controller_code, undefined);
      assert.match(result.body.error.message, /nothing was done/);
      assert.doesNotMatch(result.body.error.message, /approval_/, 'the code is said once, as the code');
    }
    await controller.close();
  });

  it('keeps a free-text controller error out of controller_code', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    const pending = call(sessionId, 'browser_snapshot');
    const command = await controller.next(COMMAND);
    controller.result(command.params.command_id, false, { code: 'Not A Code; rm -rf /', message: 'x' });
    const result = await pending;
    assert.equal(result.body.error.code, 'controller_rejected');
    assert.equal(result.body.error.controller_code, undefined);
    await controller.close();
  });

  it('validates arguments for the controller route with the catalog schema', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    // A field alone, then the rules between fields: none of these reaches the user's browser.
    for (const [tool, args] of [
      ['browser_scroll', { direction: 'sideways' }],
      ['browser_screenshot', { quality: 50 }],
      ['browser_screenshot', { ref: '@e1', full_page: true }],
    ] as const) {
      const result = await call(sessionId, tool, args);
      assert.equal(result.status, 400);
      assert.equal(result.body.error.code, 'invalid_arguments', JSON.stringify(args));
    }
    await controller.nothing(COMMAND);
    await controller.close();
  });

  it('follows the live flag: turned off in config.yaml, the bound session fails closed; turned on, its controller serves it again', async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId });
    const before = backend.calls.length;
    gw.writeConfig({ browser: { extension_control: { enabled: false } } });
    try {
      assert.equal((await call(sessionId, 'browser_tabs')).body.error.code, 'controller_unavailable');
      assert.equal(backend.calls.length, before);
    } finally {
      gw.writeConfig(ENABLED_CONFIG);
    }
    const pending = call(sessionId, 'browser_tabs');
    const command = await controller.next(COMMAND);
    controller.result(command.params.command_id, true, tabsAnswer('controller again'));
    assert.equal((await pending).body.result.tabs[0].title, 'controller again');
    assert.equal(backend.calls.length, before);
    await controller.close();
  });

  it('refuses new controller sockets at once when the flag is turned off', async () => {
    const sessionId = await gw.createSession();
    gw.writeConfig({ browser: { extension_control: { enabled: false } } });
    try {
      const result = await gw.request('POST', '/v1/browser-control/register', {
        body: {
          protocol_version: 1,
          session_id: sessionId,
          controller_id: 'c',
          browser_profile_id: 'p',
          capabilities: ['browser_tabs'],
        },
      });
      assert.equal(result.body.error.code, 'browser_control_disabled');
    } finally {
      gw.writeConfig(ENABLED_CONFIG);
    }
  });
});

describe('ambiguous lanes', () => {
  it('fails closed when two controllers of one principal answer for the same session', () => {
    const broker = createInMemoryBroker({
      clock: { now: () => 0 },
      log: silentLogger,
      commandTimeoutMs: 1000,
    });
    const scope = (profile: string) => ({
      principal_id: 'owner',
      profile_id: profile,
      session_id: 's1',
      controller_id: 'c-' + profile,
      browser_profile_id: 'b',
      transport_family: 'local-api' as const,
      capabilities: ['browser_tabs' as const],
    });
    broker.attach(scope('work'), {}, () => undefined);
    broker.attach(scope('home'), {}, () => undefined);
    const decision = decideRoute({
      tool: 'browser_tabs',
      featureEnabled: true,
      principalId: 'owner',
      transportFamily: 'local-api',
      binding: null,
      lane: () =>
        broker.laneState({
          principalId: 'owner',
          profileId: 'work',
          sessionId: 's1',
          transportFamily: 'local-api',
        }),
    });
    assert.equal(decision.kind, 'unavailable');
    broker.close();
  });

  it('sends a remote caller of a never-bound session to the backend when only a local controller registered', () => {
    const broker = createInMemoryBroker({
      clock: { now: () => 0 },
      log: silentLogger,
      commandTimeoutMs: 1000,
    });
    broker.attach(
      {
        principal_id: 'owner',
        profile_id: 'default',
        session_id: 's1',
        controller_id: 'c',
        browser_profile_id: 'b',
        transport_family: 'local-api',
        capabilities: ['browser_tabs'],
      },
      {},
      () => undefined,
    );
    const decision = decideRoute({
      tool: 'browser_tabs',
      featureEnabled: true,
      principalId: 'owner',
      transportFamily: 'remote-api',
      binding: null,
      lane: () =>
        broker.laneState({
          principalId: 'owner',
          profileId: 'default',
          sessionId: 's1',
          transportFamily: 'remote-api',
        }),
    });
    assert.equal(decision.kind, 'backend');
    broker.close();
  });

  it('fails closed for every caller, transport and flag once the session is bound, whatever its lane holds', () => {
    const emptyLane = () => ({ registered: false, controllers: [] });
    const since = new Date(0).toISOString();
    const cases = [
      { state: 'bound', featureEnabled: true, code: 'controller_unavailable' },
      { state: 'stopped', featureEnabled: true, code: 'session_stopped' },
      { state: 'revoked', featureEnabled: true, code: 'session_stopped' },
      { state: 'stopped', featureEnabled: false, code: 'controller_unavailable' },
    ] as const;
    for (const c of cases) {
      for (const transportFamily of ['local-api', 'remote-api'] as const) {
        const decision = decideRoute({
          tool: 'browser_navigate',
          featureEnabled: c.featureEnabled,
          principalId: 'owner',
          transportFamily,
          binding: { state: c.state, since, controller_id: 'c' },
          lane: emptyLane,
        });
        assert.equal(decision.kind, 'unavailable', `${c.state} ${transportFamily}`);
        assert.equal(
          decision.kind === 'unavailable' && decision.code,
          c.code,
          `${c.state} ${transportFamily}`,
        );
      }
    }
  });
});
