/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment, @typescript-eslint/no-unsafe-argument, @typescript-eslint/no-unsafe-call -- tests read JSON bodies */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { SqliteStore } from '../../src/gateway/store/sqlite-store.js';
import { makeHome, startTestGateway, type TestGateway } from './fixtures/gateway.js';
import { RecordingBackend } from './fixtures/recording-backend.js';

describe('sessions', () => {
  let gw: TestGateway;
  let backend: RecordingBackend;
  before(async () => {
    backend = new RecordingBackend();
    gw = await startTestGateway({ backend });
  });
  after(() => gw.close());

  it('creates a session with a title and returns it with 201', async () => {
    const result = await gw.request('POST', '/v1/sessions', { body: { title: 'shopping' } });
    assert.equal(result.status, 201);
    assert.match(result.body.session_id, /^sess_[A-Za-z0-9_-]{24}$/);
    assert.equal(result.body.title, 'shopping');
    assert.ok(!Number.isNaN(Date.parse(result.body.created_at)));
  });

  it('creates a session from an empty body', async () => {
    const result = await gw.request('POST', '/v1/sessions');
    assert.equal(result.status, 201);
    assert.equal(result.body.title, null);
  });

  it('lists, gets and deletes a session, and 404s it afterwards', async () => {
    const id = await gw.createSession('to delete');
    const list = await gw.request('GET', '/v1/sessions');
    assert.ok(list.body.sessions.some((s: { session_id: string }) => s.session_id === id));
    assert.equal((await gw.request('GET', `/v1/sessions/${id}`)).body.title, 'to delete');
    assert.equal((await gw.request('DELETE', `/v1/sessions/${id}`)).status, 200);
    assert.deepEqual(backend.closedSessions.slice(-1), [id]);
    const gone = await gw.request('GET', `/v1/sessions/${id}`);
    assert.equal(gone.status, 404);
    assert.equal(gone.body.error.code, 'session_not_found');
    assert.equal((await gw.request('DELETE', `/v1/sessions/${id}`)).status, 404);
  });

  it('recreates a reference client session by id with POST /api/sessions, idempotently', async () => {
    const body = { id: 'hermes:abc-123', title: 'Browser', source: 'hermes_browser' };
    const first = await gw.request('POST', '/api/sessions', { body });
    assert.equal(first.status, 201);
    assert.equal(first.body.session_id, 'hermes:abc-123');
    assert.equal(first.body.source, 'hermes_browser');
    const again = await gw.request('POST', '/api/sessions', { body });
    assert.equal(again.status, 200);
    const all = (await gw.request('GET', '/v1/sessions')).body.sessions as { session_id: string }[];
    assert.equal(all.filter((s) => s.session_id === 'hermes:abc-123').length, 1);
  });

  it('refuses with session_exists an id that another owner holds in the store, and leaves theirs', async () => {
    // A store more than one owner writes (two gateways on one database): another owner's session is
    // not listed, read or taken over here, and its id cannot be recreated as this owner's.
    const store = SqliteStore.open(gw.home);
    const theirs = {
      session_id: 'shared:taken',
      title: 'theirs',
      source: 'api',
      principal_id: 'another-owner',
      created_at: '2026-01-01T00:00:00.000Z',
      binding: null,
      stopped_at: null,
    };
    try {
      await store.sessions.insert(theirs);
      const taken = await gw.request('POST', '/api/sessions', {
        body: { id: 'shared:taken', title: 'mine' },
      });
      assert.equal(taken.status, 409);
      assert.equal(taken.body.error.code, 'session_exists');
      assert.equal((await gw.request('GET', '/v1/sessions/shared:taken')).status, 404);
      const listed = (await gw.request('GET', '/v1/sessions')).body.sessions as { session_id: string }[];
      assert.ok(!listed.some((s) => s.session_id === 'shared:taken'));
      assert.deepEqual(await store.sessions.get('shared:taken'), theirs);
    } finally {
      await store.close();
    }
  });

  it('refuses a reference session id outside 1-256 characters of [A-Za-z0-9._:-]', async () => {
    for (const id of ['', 'has space', 'x'.repeat(257), 'slash/no']) {
      const result = await gw.request('POST', '/api/sessions', { body: { id, source: 'x' } });
      assert.equal(result.status, 400, id);
      assert.equal(result.body.error.code, 'invalid_request');
    }
  });

  it('refuses a session body of the wrong shape, naming the field, and creates nothing', async () => {
    const before = (await gw.request('GET', '/v1/sessions')).body.sessions.length as number;
    const bad: [string, string, Record<string, unknown>][] = [
      ['/api/sessions', 'title', { id: 'shape-1', title: 42 }],
      ['/api/sessions', 'source', { id: 'shape-2', source: ['api'] }],
      ['/api/sessions', 'id', { id: 7 }],
      ['/v1/sessions', 'title', { title: { text: 'x' } }],
    ];
    for (const [path, field, body] of bad) {
      const result = await gw.request('POST', path, { body });
      assert.equal(result.status, 400, `${path} ${field}`);
      assert.equal(result.body.error.code, 'invalid_request');
      assert.match(String(result.body.error.message), new RegExp(`^${field}: `));
    }
    assert.equal((await gw.request('GET', '/v1/sessions')).body.sessions.length, before);
  });

  it('lists the tool catalog with JSON Schemas', async () => {
    const result = await gw.request('GET', '/v1/tools');
    const navigate = result.body.tools.find((t: { name: string }) => t.name === 'browser_navigate');
    assert.equal(navigate.inputSchema.type, 'object');
    assert.ok(navigate.inputSchema.properties.url);
  });

  it('answers unknown_tool before looking the session up', async () => {
    const result = await gw.request('POST', '/v1/sessions/nope/tools/browser_fly', { body: {} });
    assert.equal(result.status, 404);
    assert.equal(result.body.error.code, 'unknown_tool');
  });

  it('answers session_not_found for a tool call in an unknown session', async () => {
    const result = await gw.request('POST', '/v1/sessions/nope/tools/browser_tabs', { body: {} });
    assert.equal(result.body.error.code, 'session_not_found');
  });

  it('answers invalid_arguments naming the field', async () => {
    const id = await gw.createSession();
    const result = await gw.request('POST', `/v1/sessions/${id}/tools/browser_navigate`, {
      body: { url: 7 },
    });
    assert.equal(result.status, 400);
    assert.equal(result.body.error.code, 'invalid_arguments');
    assert.match(result.body.error.message, /url/);
  });

  it('passes a call in an unbound session to the backend with its tool-call id', async () => {
    const id = await gw.createSession();
    const result = await gw.request('POST', `/v1/sessions/${id}/tools/browser_tabs`, {
      body: {},
      headers: { 'x-tool-call-id': 'call-7' },
    });
    assert.equal(result.status, 200);
    assert.deepEqual(result.body, { ok: true, result: { backend: 'recording', tool: 'browser_tabs' } });
    assert.equal(backend.calls.at(-1)?.toolCallId, 'call-7');
  });

  it('refuses an X-Tool-Call-Id over 256 characters', async () => {
    const id = await gw.createSession();
    const result = await gw.request('POST', `/v1/sessions/${id}/tools/browser_tabs`, {
      body: {},
      headers: { 'x-tool-call-id': 'x'.repeat(257) },
    });
    assert.equal(result.body.error.code, 'invalid_request');
  });
});

describe('sessions across a restart', () => {
  it('keeps sessions when the gateway restarts on the same TABGATE_HOME', async () => {
    const home = makeHome();
    try {
      const first = await startTestGateway({ home });
      const id = await first.createSession('survivor');
      await first.close();
      const second = await startTestGateway({ home });
      try {
        assert.equal(second.key, first.key);
        const result = await second.request('GET', `/v1/sessions/${id}`);
        assert.equal(result.status, 200);
        assert.equal(result.body.title, 'survivor');
      } finally {
        await second.close();
      }
    } finally {
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
    }
  });

  it('answers backend_unavailable with a clear message when no browser can be reached', async () => {
    // Port 1 on loopback: nothing listens there, so the configured browser never answers.
    const gw = await startTestGateway({ env: { BROWSER_CDP_URL: 'http://127.0.0.1:1' } });
    try {
      const id = await gw.createSession();
      const result = await gw.request('POST', `/v1/sessions/${id}/tools/browser_tabs`, { body: {} });
      assert.equal(result.status, 503);
      assert.equal(result.body.error.code, 'backend_unavailable');
      assert.match(result.body.error.message, /CDP endpoint did not answer/);
    } finally {
      await gw.close();
    }
  });
});
