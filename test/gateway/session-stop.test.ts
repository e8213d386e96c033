/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON bodies */
/**
 * The owner's Stop: the running call of a session ends at once with `session_stopped_by_owner`, the
 * browser is told to give up on it, and every later call is refused (the backend sees none) until the
 * owner resumes — never a fallback. Only the operator credential can stop or resume; the agent's API key
 * cannot. Deleting a session cancels its running call too.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { BrowserBackend, ToolCall } from '../../src/gateway/backends/index.js';
import type { ToolName, ToolResults } from '../../src/protocol/index.js';
import { TestController } from './fixtures/controller.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';
import { runTabgate as tabgate } from '../helpers/tabgate-cli.js';

/** A backend whose `browser_navigate` runs until the call is aborted; every other tool answers at once. */
class HangingBackend implements BrowserBackend {
  readonly name = 'hanging';
  readonly calls: ToolCall[] = [];
  readonly aborted: string[] = [];
  private started: (() => void)[] = [];

  async call<N extends ToolName>(call: ToolCall<N>): Promise<ToolResults[N]> {
    this.calls.push(call);
    // Not a catalog shape: the tests only see that the call was answered.
    if (call.tool !== 'browser_navigate') return { tool: call.tool } as unknown as ToolResults[N];
    for (const wake of this.started.splice(0)) wake();
    return new Promise((_resolve, reject) => {
      call.signal?.addEventListener('abort', () => {
        this.aborted.push(call.sessionId);
        reject(new Error('aborted'));
      });
    });
  }

  /** Resolves once a hanging call has reached the backend. */
  nextHang(): Promise<void> {
    return new Promise((resolve) => this.started.push(resolve));
  }

  async closeSession(): Promise<void> {}
  async close(): Promise<void> {}
}

describe("the owner's Stop", () => {
  let gw: TestGateway;
  let backend: HangingBackend;
  const asOwner = { authorization: '' };
  before(async () => {
    backend = new HangingBackend();
    gw = await startTestGateway({ backend });
    asOwner.authorization = `Bearer ${gw.operatorKey}`;
  });
  after(() => gw.close());

  const call = (sessionId: string, tool: string, body: unknown = {}) =>
    gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body });
  const owner = (sessionId: string, verb: 'stop' | 'resume') =>
    gw.request('POST', `/v1/sessions/${sessionId}/${verb}`, { body: {}, headers: asOwner });

  it('ends the running call with session_stopped_by_owner and aborts it in the backend', async () => {
    const sessionId = await gw.createSession();
    const hung = backend.nextHang();
    const running = call(sessionId, 'browser_navigate', { url: 'http://127.0.0.1:9/' });
    await hung;
    const stop = await owner(sessionId, 'stop');
    assert.equal(stop.status, 200, JSON.stringify(stop.body));
    assert.equal(stop.body.cancelled_calls, 1);
    assert.match(String(stop.body.stopped_at), /^\d{4}-/);
    const answer = await running;
    assert.equal(answer.status, 409);
    assert.equal(answer.body.error.code, 'session_stopped_by_owner');
    assert.deepEqual(backend.aborted, [sessionId]);
  });

  it('refuses every later call until resumed, without reaching the backend, then runs again', async () => {
    const sessionId = await gw.createSession();
    assert.equal((await owner(sessionId, 'stop')).status, 200);
    const before = backend.calls.length;
    const refused = await call(sessionId, 'browser_tabs');
    assert.equal(refused.status, 409);
    assert.equal(refused.body.error.code, 'session_stopped_by_owner');
    assert.equal(backend.calls.length, before);
    assert.notEqual((await gw.request('GET', `/v1/sessions/${sessionId}`)).body.stopped_at, null);

    const resumed = await owner(sessionId, 'resume');
    assert.equal(resumed.status, 200);
    assert.equal(resumed.body.stopped_at, null);
    assert.equal((await call(sessionId, 'browser_tabs')).status, 200);
    assert.equal(backend.calls.length, before + 1);
  });

  it("refuses the agent's API key for stop and resume with 403 operator_required", async () => {
    const sessionId = await gw.createSession();
    for (const verb of ['stop', 'resume']) {
      const byAgent = await gw.request('POST', `/v1/sessions/${sessionId}/${verb}`, { body: {} });
      assert.equal(byAgent.status, 403);
      assert.equal(byAgent.body.error.code, 'operator_required');
    }
    assert.equal((await call(sessionId, 'browser_tabs')).status, 200);
  });

  it("needs the dashboard page token from the owner's signed-in browser: without it, csrf_token_invalid", async () => {
    const sessionId = await gw.createSession();
    const code = new URLSearchParams(new URL(gw.gateway.signInLink()).hash.slice(1)).get('code') ?? '';
    const origin = new URL(gw.url).origin;
    const signedIn = await gw.request('POST', '/operator/sign-in', {
      body: { code },
      headers: { authorization: '', origin, 'sec-fetch-site': 'same-origin' },
    });
    assert.equal(signedIn.status, 200);
    const browser = {
      authorization: '',
      origin,
      'sec-fetch-site': 'same-origin',
      cookie: (signedIn.headers.get('set-cookie') ?? '').split(';')[0] ?? '',
      'x-tabgate-operator': signedIn.body.proof as string,
    };
    for (const token of [undefined, 'forged-token']) {
      const stop = await gw.request('POST', `/v1/sessions/${sessionId}/stop`, {
        body: {},
        headers: token ? { ...browser, 'x-tabgate-csrf': token } : browser,
      });
      assert.equal(stop.status, 403);
      assert.equal(stop.body.error.code, 'csrf_token_invalid');
    }
    assert.equal((await call(sessionId, 'browser_tabs')).status, 200);
  });

  it('answers session_not_found for an unknown session, and stops nothing', async () => {
    const stop = await owner('sess_nope', 'stop');
    assert.equal(stop.status, 404);
    assert.equal(stop.body.error.code, 'session_not_found');
  });

  it('cancels the running call when the agent deletes its session', async () => {
    const sessionId = await gw.createSession();
    const hung = backend.nextHang();
    const running = call(sessionId, 'browser_navigate', { url: 'http://127.0.0.1:9/' });
    await hung;
    assert.equal((await gw.request('DELETE', `/v1/sessions/${sessionId}`)).status, 200);
    const answer = await running;
    assert.equal(answer.body.error.code, 'call_cancelled');
    assert.ok(backend.aborted.includes(sessionId));
  });

  it("sends the user's browser a cancel frame for the running command, and nothing after", async () => {
    const sessionId = await gw.createSession();
    const controller = await TestController.connect(gw, { sessionId, controllerId: 'ctrl-stop' });
    const running = call(sessionId, 'browser_snapshot');
    const command = await controller.next('browser.controller.command');
    await owner(sessionId, 'stop');
    const answer = await running;
    assert.equal(answer.body.error.code, 'session_stopped_by_owner');
    const cancel = await controller.next('browser.controller.cancel');
    assert.equal(cancel.params.command_id, command.params.command_id);
    assert.equal((await call(sessionId, 'browser_snapshot')).body.error.code, 'session_stopped_by_owner');
    await controller.nothing('browser.controller.command');
    const audit = await gw.request('GET', `/v1/audit?session=${sessionId}`);
    const actions = (audit.body.entries as { action: string; outcome: string }[]).map(
      (e) => `${e.action}:${e.outcome}`,
    );
    // Rows land as calls end, and the stopped call ends within Stop's own turn: either may come first.
    assert.deepEqual(actions.sort(), [
      'browser_snapshot:session_stopped_by_owner',
      'browser_snapshot:session_stopped_by_owner',
      'session.stop:ok',
    ]);
    await controller.close();
  });

  it('stays stopped across a restart of the gateway', async () => {
    const home = gw.home;
    const sessionId = await gw.createSession();
    await owner(sessionId, 'stop');
    const second = await startTestGateway({ backend: new HangingBackend(), home });
    try {
      const refused = await second.request('POST', `/v1/sessions/${sessionId}/tools/browser_tabs`, {
        body: {},
      });
      assert.equal(refused.body.error.code, 'session_stopped_by_owner');
    } finally {
      await second.close();
    }
  });

  it('`tabgate sessions stop` and `resume` act with the operator key from the home folder', async () => {
    const sessionId = await gw.createSession();
    const stop = await tabgate(gw.home, ['sessions', '--gateway', gw.url, 'stop', sessionId]);
    assert.equal(stop.code, 0, stop.stderr);
    assert.match(stop.stdout, /Stopped/);
    assert.equal((await call(sessionId, 'browser_tabs')).body.error.code, 'session_stopped_by_owner');
    const resume = await tabgate(gw.home, ['sessions', '--gateway', gw.url, 'resume', sessionId]);
    assert.equal(resume.code, 0, resume.stderr);
    assert.equal((await call(sessionId, 'browser_tabs')).status, 200);
    const unknown = await tabgate(gw.home, ['sessions', '--gateway', gw.url, 'stop', 'sess_nope']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /session_not_found/);
  });
});
