/**
 * The dashboard's session lines follow change events, not a re-read each second: a session created,
 * acting, stopped, resumed or deleted shows in every open tab at once (before the audit row of a call
 * made after the change), each change once; an idle list sends nothing; and a change no event reported
 * (another process writing the store) is repaired by the full pass a new tab asks for.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/gateway/store/database.js';
import { SessionStore } from '../../src/gateway/store/session-store.js';
import type { LiveEvent } from '../../src/dashboard/live-events.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { openTab } from './fixtures/live-tab.js';

interface Line {
  session_id: string;
  status: string;
  stopped_at: string | null;
  last_action: { tool: string; outcome: string | null } | null;
}
const sessionOf = (e: LiveEvent) => (e.data as { session_id?: string }).session_id;
const isAudit = (e: LiveEvent, sessionId: string) => e.event === 'audit' && sessionOf(e) === sessionId;

describe("the dashboard's session lines, from change events", { timeout: 60_000 }, () => {
  let gw: TestGateway;
  const owner = { authorization: '' };
  before(async () => {
    gw = await startTestGateway({
      backend: new RecordingBackend(),
      config: { audit: { all_backends: true } },
    });
    owner.authorization = `Bearer ${gw.operatorKey}`;
  });
  after(() => gw.close());

  const call = async (sessionId: string) =>
    assert.equal(
      (await gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_tabs`, { body: {} })).status,
      200,
    );

  it('shows a session created, acting, stopped, resumed and deleted in every tab at once, each change once', async () => {
    const marker = await gw.createSession('marker');
    const tabs = [await openTab(gw), await openTab(gw)];
    let markers = 0;
    /** A call made after the change: its audit row comes in the change's batch or a later one. */
    const mark = async () => {
      await call(marker);
      markers++;
      await Promise.all(
        tabs.map((tab) => tab.until((events) => events.filter((e) => isAudit(e, marker)).length >= markers)),
      );
    };
    const created = await gw.request('POST', '/v1/sessions', { body: { title: 'followed' } });
    assert.equal(created.status, 201);
    const sessionId = (created.body as { session_id: string }).session_id;
    await mark();
    await call(sessionId);
    await mark();
    assert.equal(
      (await gw.request('POST', `/v1/sessions/${sessionId}/stop`, { body: {}, headers: owner })).status,
      200,
    );
    await mark();
    assert.equal(
      (await gw.request('POST', `/v1/sessions/${sessionId}/resume`, { body: {}, headers: owner })).status,
      200,
    );
    await mark();
    assert.equal((await gw.request('DELETE', `/v1/sessions/${sessionId}`)).status, 200);
    await mark();
    const seen: string[][] = [];
    for (const tab of tabs) {
      tab.close();
      // Each of the session's events, with the number of marker rows that came before it.
      const steps: string[] = [];
      let before = 0;
      for (const e of tab.events) {
        if (isAudit(e, marker)) before++;
        if (sessionOf(e) !== sessionId || (e.event !== 'session' && e.event !== 'session-gone')) continue;
        if (e.event === 'session-gone') {
          steps.push(`${before}:gone`);
          continue;
        }
        const line = e.data as Line;
        steps.push(
          `${before}:${line.status}${line.stopped_at ? ' since stop' : ''}${line.last_action ? ` after ${line.last_action.tool}` : ''}`,
        );
      }
      seen.push(steps);
    }
    // Each change before the marker call that followed it; the call's start and end may share a batch.
    const expected = [
      '0:idle',
      ...(seen[0]?.includes('1:acting after browser_tabs') ? ['1:acting after browser_tabs'] : []),
      '1:idle after browser_tabs',
      '2:stopped since stop after browser_tabs',
      '3:idle after browser_tabs',
      '4:gone',
    ];
    assert.deepEqual(seen[0], expected);
    assert.deepEqual(seen[1], seen[0]);
  });

  it('sends no session line for sessions that did not change while others act', async () => {
    const idle = await Promise.all(Array.from({ length: 50 }, (_, i) => gw.createSession(`idle ${i}`)));
    const busy = await gw.createSession('busy');
    const tab = await openTab(gw);
    const CALLS = 30;
    for (let i = 0; i < CALLS; i++) await call(busy);
    await tab.until((events) => events.filter((e) => isAudit(e, busy)).length >= CALLS);
    tab.close();
    const idleIds = new Set(idle);
    const first = tab.events.findIndex((e) => e.event === 'audit' || e.event === 'action');
    const resent = tab.events
      .slice(first)
      .filter((e) => e.event === 'session' && idleIds.has(sessionOf(e) ?? ''));
    assert.deepEqual(resent, []);
    // What came after the first write is the busy session's events only: bounded by the calls, not the sessions.
    const busyLines = tab.events.slice(first).filter((e) => e.event === 'session');
    assert.ok(busyLines.every((e) => sessionOf(e) === busy));
    assert.ok(busyLines.length <= 2 * CALLS);
    for (const sessionId of idle)
      assert.equal((await gw.request('DELETE', `/v1/sessions/${sessionId}`)).status, 200);
    await gw.request('DELETE', `/v1/sessions/${busy}`);
  });

  it('repairs a change no event reported with the full pass a new tab asks for', async () => {
    const sessionId = await gw.createSession('changed elsewhere');
    const tab = await openTab(gw);
    assert.ok(tab.events.some((e) => e.event === 'session' && sessionOf(e) === sessionId));
    // Another process stops it in the store: nothing here hears of it.
    const db = openDatabase(gw.home);
    try {
      assert.equal(new SessionStore(db).setStopped(sessionId, new Date().toISOString()), true);
    } finally {
      db.close();
    }
    const second = await openTab(gw);
    const stopped = (events: LiveEvent[]) =>
      events.some(
        (e) => e.event === 'session' && sessionOf(e) === sessionId && (e.data as Line).status === 'stopped',
      );
    await Promise.all([tab.until(stopped), second.until(stopped)]);
    tab.close();
    second.close();
  });
});
