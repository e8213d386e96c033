/**
 * Where the dashboard's live stream gets its audit rows: the fold that writes them hands them over (the
 * log is not read back), and the stream must still be the log itself. Every open tab gets every row
 * once, in id order, exactly as `GET /v1/audit` shows it (and a new tab's first write has every
 * session line, read before it, not a batch later); a row another writer put in the log between
 * handed-over rows is read from the log, in its place; and a tab that lost events gets, with its
 * `resync`, each session's latest screenshot, so its picture is not left behind until the next one.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import type { ToolCall } from '../../src/gateway/backends/index.js';
import { AuditStore } from '../../src/gateway/audit/index.js';
import { openDatabase } from '../../src/gateway/store/database.js';
import { parseEvents, type LiveEvent } from '../../src/dashboard/live-events.js';
import type { ToolName, ToolResults } from '../../src/protocol/index.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { openTab } from './fixtures/live-tab.js';

/** A 1×1 PNG. */
const PIXEL =
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==';

/** The recording backend, with a screenshot to show for every session. */
class PictureBackend extends RecordingBackend {
  override async call<N extends ToolName>(call: ToolCall<N>): Promise<ToolResults[N]> {
    if (call.tool === 'browser_screenshot') return { data: PIXEL } as unknown as ToolResults[N];
    return super.call(call);
  }
}

const audits = (events: LiveEvent[]) => events.filter((e) => e.event === 'audit');
const ids = (events: LiveEvent[]) => audits(events).map((e) => Number(e.id));

describe("the dashboard's live stream and the audit log's folds", { timeout: 60_000 }, () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ backend: new PictureBackend(), config: { audit: { all_backends: true } } });
  });
  after(() => gw.close());

  const call = async (sessionId: string, tool = 'browser_tabs', body: unknown = {}) =>
    assert.equal((await gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body })).status, 200);

  it('starts a newly opened tab with every session line in its first write', async () => {
    const sessionId = await gw.createSession('first write');
    const first = await new Promise<string>((resolve, reject) => {
      http
        .get(
          `${gw.url}/v1/dashboard/events`,
          { headers: { authorization: `Bearer ${gw.operatorKey}` } },
          (response) => {
            response.setEncoding('utf8');
            response.once('data', (text: string) => {
              response.destroy();
              resolve(text);
            });
          },
        )
        .on('error', reject);
    });
    const lines: LiveEvent[] = [];
    parseEvents(first, (event) => lines.push(event));
    assert.ok(
      lines.some((e) => e.event === 'session' && (e.data as { session_id: string }).session_id === sessionId),
    );
  });

  it('sends every tab each handed-over row once, in id order, as GET /v1/audit shows it', async () => {
    const sessionId = await gw.createSession('handed over');
    const tabs = await Promise.all([openTab(gw), openTab(gw), openTab(gw)]);
    const CALLS = 40;
    let next = 0;
    // Concurrent, so folds take several rows at once.
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next++ < CALLS)
          await call(sessionId, 'browser_navigate', { url: `https://example.com/${next}` });
      }),
    );
    const got = await Promise.all(tabs.map((tab) => tab.until((events) => audits(events).length >= CALLS)));
    for (const tab of tabs) tab.close();
    const first = ids(got[0] as LiveEvent[]);
    assert.equal(first.length, CALLS);
    assert.ok(first.every((id, i) => i === 0 || id === (first[i - 1] as number) + 1));
    for (const events of got.slice(1)) assert.deepEqual(ids(events), first);
    // Field by field and in the same order: the event is the row as the log gives it.
    const log = await gw.request('GET', `/v1/audit?after=${(first[0] as number) - 1}&limit=${CALLS}`);
    assert.equal(log.status, 200);
    for (const events of got)
      assert.deepEqual(
        audits(events).map((e) => JSON.stringify(e.data)),
        (log.body as { entries: unknown[] }).entries.map((entry) => JSON.stringify(entry)),
      );
  });

  it('reads a row another writer put between handed-over rows from the log, in its place', async () => {
    const sessionId = await gw.createSession('gap');
    const tab = await openTab(gw);
    await call(sessionId);
    const before = await tab.until((events) => audits(events).length >= 1);
    const last = Number(audits(before).at(-1)?.id);
    // Another process writing the same file (as `tabgate` folding a gone gateway's journal would).
    const db = openDatabase(gw.home);
    try {
      const foreign = new AuditStore(db).append({
        at_ms: Date.now(),
        session_id: 'written-elsewhere',
        principal_id: 'someone',
        controller_id: null,
        backend: 'recording',
        action: 'browser_tabs',
        arguments: {},
        origin: null,
        outcome: 'ok',
        duration_ms: 1,
        tool_call_id: null,
      });
      assert.equal(foreign, last + 1);
    } finally {
      db.close();
    }
    await call(sessionId);
    await call(sessionId);
    // Up to the last call's row, whether or not the one between arrived.
    const events = await tab.until((got) => ids(got).includes(last + 3));
    tab.close();
    assert.deepEqual(ids(events), [last, last + 1, last + 2, last + 3]);
    assert.deepEqual(
      audits(events).map((e) => (e.data as { session_id: string }).session_id),
      [sessionId, 'written-elsewhere', sessionId, sessionId],
    );
  });

  it("sends a tab that lost events each session's latest screenshot with its resync", async () => {
    const sessionId = await gw.createSession('resync picture');
    await call(sessionId);
    // Both show the session's live view: its actions too go to them.
    const stuck = await openTab(gw, { paused: true, follows: sessionId });
    const reading = await openTab(gw, { follows: sessionId });
    // The session is shown: a screenshot now, and after its actions (at most one a second).
    assert.equal(
      (
        await fetch(`${gw.url}/v1/dashboard/sessions/${sessionId}`, {
          headers: { authorization: `Bearer ${gw.operatorKey}` },
        })
      ).status,
      200,
    );
    const shots = (events: LiveEvent[]) =>
      events
        .filter(
          (e) => e.event === 'screenshot' && (e.data as { session_id: string }).session_id === sessionId,
        )
        .map((e) => (e.data as { seq: number }).seq);
    await reading.until((events) => shots(events).length >= 1);
    // Long addresses make each call's events some 25 KB: the stuck tab's socket fills, and the gateway
    // drops what it kept for it.
    const CALLS = 600;
    const url = `https://example.com/?q=${'word+'.repeat(1600)}`;
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next++ < CALLS) await call(sessionId, 'browser_navigate', { url });
      }),
    );
    const seen = await reading.until((events) => audits(events).length >= CALLS);
    reading.close();
    const latestSeen = Math.max(...shots(seen));

    const events = await stuck.until((got) => audits(got).length >= CALLS);
    stuck.close();
    const resync = events.findIndex((e) => e.event === 'resync');
    assert.ok(resync >= 0, 'the stuck tab lost events');
    const after = events.slice(resync + 1);
    const picture = after.findIndex(
      (e) => e.event === 'screenshot' && (e.data as { session_id: string }).session_id === sessionId,
    );
    const firstRow = after.findIndex((e) => e.event === 'audit');
    // With the resync itself, before the rows it catches up on.
    assert.ok(picture >= 0 && picture < firstRow, 'the screenshot comes with the resync');
    assert.ok((after[picture]?.data as { seq: number }).seq >= latestSeen);
  });
});
