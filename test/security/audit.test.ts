/* eslint-disable @typescript-eslint/no-unsafe-member-access -- tests read JSON error bodies */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AuditStore, type AuditEntry } from '../../src/gateway/audit/index.js';
import { openDatabase } from '../../src/gateway/store/database.js';
import { catalogAnswer, TestController } from '../gateway/fixtures/controller.js';
import { ENABLED_CONFIG, makeHome, startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { startControlledSession, type ControlledSession } from '../gateway/fixtures/controlled-session.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';

const TYPED_SECRET = 'correct-horse-battery-staple-42';
const URL_TOKEN = 'eyJhbGciOiJIUzI1NiJ9abc123DEF456';

/** Answers every command with data derived from it, until closed. */
function answerAll(controller: TestController, reject = false): void {
  controller.ws.on('message', (data) => {
    const frame = JSON.parse((data as Buffer).toString('utf8')) as {
      method: string;
      params: Record<string, unknown>;
    };
    if (frame.method !== 'browser.controller.command') return;
    const args = frame.params.arguments as { url?: string };
    if (reject) controller.result(frame.params.command_id, false, { message: 'user said no' });
    else
      controller.result(
        frame.params.command_id,
        true,
        catalogAnswer(String(frame.params.action), args.url ?? 'https://tab.example/page'),
      );
  });
}

describe('audit log', () => {
  let gw: TestGateway;
  let backend: RecordingBackend;
  let sessionId: string;
  let controller: TestController;

  let running: ControlledSession | undefined;

  before(async () => {
    backend = new RecordingBackend();
    running = await startControlledSession({ gateway: { backend }, controllerId: 'laptop-chrome' });
    ({ gw, sessionId, controller } = running);
    answerAll(controller);
  });
  after(() => running?.close());

  const call = (session: string, tool: string, args: unknown, toolCallId?: string) =>
    gw.request('POST', `/v1/sessions/${session}/tools/${tool}`, {
      body: args,
      headers: toolCallId ? { 'x-tool-call-id': toolCallId } : {},
    });
  const audit = async (query = '') => {
    const result = await gw.request('GET', `/v1/audit${query}`);
    return { status: result.status, body: result.body as { entries: AuditEntry[]; next_after: number } };
  };
  const byCallId = (entries: AuditEntry[], id: string): AuditEntry => {
    const entry = entries.find((e) => e.tool_call_id === id);
    assert.ok(entry, `call ${id} is in the audit log`);
    return entry;
  };

  it('records a call routed to the user browser with session, principal, controller, origin and outcome', async () => {
    const url = 'https://shop.example:8443/cart?item=42';
    assert.equal((await call(sessionId, 'browser_navigate', { url }, 'call-nav-1')).status, 200);
    const { body } = await audit(`?session=${sessionId}`);
    const entry = byCallId(body.entries, 'call-nav-1');
    assert.equal(entry.session_id, sessionId);
    assert.equal(entry.principal_id, 'owner');
    assert.equal(entry.controller_id, 'laptop-chrome');
    assert.equal(entry.backend, 'controller');
    assert.equal(entry.action, 'browser_navigate');
    assert.equal(entry.origin, 'https://shop.example:8443');
    assert.equal(entry.outcome, 'ok');
    assert.equal(typeof entry.duration_ms, 'number');
    assert.equal(entry.arguments.url, url);
  });

  it('never stores the text typed into a field, in the API or anywhere in the home folder', async () => {
    await call(sessionId, 'browser_type', { ref: '@e3', text: TYPED_SECRET, submit: true }, 'call-type-1');
    const files = fs
      .readdirSync(gw.home, { recursive: true, encoding: 'utf8' })
      .map((name) => path.join(gw.home, name))
      .filter((file) => fs.statSync(file).isFile());
    // The journal holds the row before it is folded into state.db: both are read.
    assert.ok(files.some((file) => file.includes(`${path.sep}audit-journal${path.sep}`)));
    const { body } = await audit(`?session=${sessionId}`);
    const entry = byCallId(body.entries, 'call-type-1');
    assert.equal(entry.arguments.text, '[redacted]');
    assert.equal(entry.arguments.ref, '@e3');
    for (const file of files) {
      const bytes = fs.readFileSync(file);
      assert.equal(bytes.includes(TYPED_SECRET), false, `${file} holds the typed text`);
    }
  });

  it('redacts token-like query values and credentials in navigated URLs', async () => {
    const url = `https://user:pw@login.example/cb?access_token=${URL_TOKEN}&lang=en&x=${URL_TOKEN}`;
    await call(sessionId, 'browser_navigate', { url }, 'call-nav-token');
    const { body } = await audit(`?session=${sessionId}`);
    const entry = byCallId(body.entries, 'call-nav-token');
    assert.equal(JSON.stringify(entry).includes(URL_TOKEN), false);
    assert.equal(JSON.stringify(entry).includes('pw@'), false);
    assert.match(String(entry.arguments.url), /lang=en/);
    assert.equal(entry.origin, 'https://login.example');
  });

  it('redacts a token in a URL path like the same token in a query string, keeping plain segments', async () => {
    const url = `https://app.example/login/${URL_TOKEN}/confirm?lang=en`;
    await call(sessionId, 'browser_navigate', { url }, 'call-nav-path-token');
    const hook = `https://hooks.example/services/T0${URL_TOKEN.slice(0, 20)}/B99/${encodeURIComponent(URL_TOKEN)}`;
    await call(sessionId, 'browser_navigate', { url: hook }, 'call-nav-webhook');
    const { body } = await audit(`?session=${sessionId}`);
    const entry = byCallId(body.entries, 'call-nav-path-token');
    assert.equal(entry.arguments.url, 'https://app.example/login/[redacted]/confirm?lang=en');
    const webhook = byCallId(body.entries, 'call-nav-webhook');
    assert.equal(webhook.arguments.url, 'https://hooks.example/services/[redacted]/B99/[redacted]');
    assert.equal(JSON.stringify(body.entries).includes(URL_TOKEN), false);
  });

  it('never stores a printable key pressed with browser_press, keeping named keys and modifiers', async () => {
    // A password entered key by key: every character is redacted, whatever field has the focus.
    const pressed = ['h', 'Ü', '7', '#', ' '];
    for (const [i, key] of pressed.entries())
      await call(
        sessionId,
        'browser_press',
        { key, modifiers: i === 0 ? ['Shift'] : undefined },
        `press-${i}`,
      );
    await call(sessionId, 'browser_press', { key: 'Enter' }, 'press-enter');
    const { body } = await audit(`?session=${sessionId}`);
    for (const i of pressed.keys()) {
      const entry = byCallId(body.entries, `press-${i}`);
      assert.equal(entry.arguments.key, '[redacted]', `press-${i}`);
    }
    assert.deepEqual(byCallId(body.entries, 'press-0').arguments.modifiers, ['Shift']);
    assert.equal(byCallId(body.entries, 'press-enter').arguments.key, 'Enter');
  });

  it('records the error code when the user browser rejects a call', async () => {
    const session = await gw.createSession();
    const rejecting = await TestController.connect(gw, { sessionId: session, controllerId: 'c-rej' });
    answerAll(rejecting, true);
    const response = await call(session, 'browser_snapshot', {});
    assert.equal(response.body.error.code, 'controller_rejected');
    const { body } = await audit(`?session=${session}`);
    assert.equal(body.entries.at(-1)?.outcome, 'controller_rejected');
    await rejecting.close();
  });

  it('records calls refused because the bound controller is offline', async () => {
    const session = await gw.createSession();
    const gone = await TestController.connect(gw, { sessionId: session, controllerId: 'c-gone' });
    await gone.close();
    const response = await call(session, 'browser_snapshot', {});
    assert.equal(response.body.error.code, 'controller_unavailable');
    const { body } = await audit(`?session=${session}`);
    assert.equal(body.entries.at(-1)?.outcome, 'controller_unavailable');
  });

  it('does not record backend calls unless audit.all_backends is on', async () => {
    const session = await gw.createSession();
    assert.equal((await call(session, 'browser_snapshot', {})).status, 200);
    assert.equal(backend.calls.length > 0, true);
    assert.deepEqual((await audit(`?session=${session}`)).body.entries, []);
  });

  it('pages forward with the after cursor and filters by session', async () => {
    const first = await audit(`?session=${sessionId}&limit=1&after=0`);
    assert.equal(first.body.entries.length, 1);
    const rest = await audit(`?session=${sessionId}&after=${first.body.next_after}`);
    assert.ok(rest.body.entries.length >= 1);
    for (const entry of [...first.body.entries, ...rest.body.entries])
      assert.equal(entry.session_id, sessionId);
    assert.ok((rest.body.entries[0]?.id ?? 0) > (first.body.entries[0]?.id ?? 0));
  });

  it('answers 400 invalid_request for a limit out of range', async () => {
    const result = await gw.request('GET', '/v1/audit?limit=0');
    assert.equal(result.status, 400);
    assert.equal(result.body.error.code, 'invalid_request');
  });

  it('answers 400 invalid_request for a filter it does not know, rather than every row', async () => {
    const result = await gw.request('GET', '/v1/audit?session_id=sess_x');
    assert.equal(result.status, 400);
    assert.equal(result.body.error.code, 'invalid_request');
    assert.match(String(result.body.error.message), /session_id/);
  });

  it('refuses readers without the API key', async () => {
    const result = await gw.request('GET', '/v1/audit', { headers: { authorization: 'Bearer nope' } });
    assert.equal(result.status, 401);
  });
});

describe('audit log options', () => {
  it('records every backend call when audit.all_backends is on', async () => {
    const gw = await startTestGateway({
      backend: new RecordingBackend(),
      config: { ...ENABLED_CONFIG, audit: { all_backends: true } },
    });
    try {
      const session = await gw.createSession();
      await gw.request('POST', `/v1/sessions/${session}/tools/browser_navigate`, {
        body: { url: 'https://docs.example/a' },
      });
      const entries = (await gw.request('GET', `/v1/audit?session=${session}`)).body.entries as AuditEntry[];
      assert.equal(entries.length, 1);
      assert.equal(entries[0]?.backend, 'recording');
      assert.equal(entries[0]?.controller_id, null);
      assert.equal(entries[0]?.origin, 'https://docs.example');
    } finally {
      await gw.close();
    }
  });

  it('purges rows older than audit.retention_days when the gateway starts', async () => {
    const home = makeHome();
    const db = openDatabase(home);
    const store = new AuditStore(db);
    const row = {
      session_id: 's',
      principal_id: 'owner',
      controller_id: 'c',
      backend: 'controller',
      action: 'browser_snapshot',
      arguments: {},
      origin: null,
      outcome: 'ok',
      duration_ms: 1,
      tool_call_id: null,
    };
    store.append({ ...row, at_ms: Date.now() - 10 * 86_400_000, tool_call_id: 'old' });
    store.append({ ...row, at_ms: Date.now() - 1 * 86_400_000, tool_call_id: 'recent' });
    db.close();
    const gw = await startTestGateway({
      home,
      backend: new RecordingBackend(),
      config: { ...ENABLED_CONFIG, audit: { retention_days: 7 } },
    });
    try {
      const entries = (await gw.request('GET', '/v1/audit')).body.entries as AuditEntry[];
      assert.deepEqual(
        entries.map((e) => e.tool_call_id),
        ['recent'],
      );
    } finally {
      await gw.close();
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
    }
  });
});
