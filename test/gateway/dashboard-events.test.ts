/**
 * The dashboard's live stream: audit rows arrive as `audit` events with their row id as the event id,
 * and a stream reopened with `Last-Event-ID` gets exactly the rows after that id — none lost, none twice
 * — including rows written while no stream was open. Actions go only to a stream that follows their
 * session (`?session=`). The agent's API key cannot open it.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { parseEvents, type LiveEvent } from '../../src/dashboard/live-events.js';
import { startTestGateway, type TestGateway } from './fixtures/gateway.js';
import { RecordingBackend } from './fixtures/recording-backend.js';
import { readWithin } from '../helpers/read-within.js';

/**
 * How long a stream may take to bring what a test waits for: a failure's deadline (a lost row fails the
 * test with what did come, rather than hanging it), never a timing.
 */

/**
 * Reads the stream until `enough` says so; then closes it. `enough` also gets the event ids heard so far,
 * those of blocks without data included. `opened`: the gateway holds the stream now.
 */
async function readEvents(
  gw: TestGateway,
  headers: Record<string, string>,
  enough: (events: LiveEvent[], ids: string[]) => boolean,
  opened?: () => void,
  follow?: string,
  audit?: string,
): Promise<LiveEvent[]> {
  const controller = new AbortController();
  const params = new URLSearchParams();
  if (follow !== undefined) params.set('session', follow);
  if (audit !== undefined) params.set('audit', audit);
  const query = params.size > 0 ? `?${params.toString()}` : '';
  const response = await fetch(`${gw.url}/v1/dashboard/events${query}`, {
    headers: { authorization: `Bearer ${gw.operatorKey}`, ...headers },
    signal: controller.signal,
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  // The gateway registers the stream as it sends the headers, so from here every action reaches it.
  opened?.();
  const events: LiveEvent[] = [];
  const ids: string[] = [];
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const read = async () => {
    while (!enough(events, ids)) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer = parseEvents(
        buffer + decoder.decode(value, { stream: true }),
        (event) => events.push(event),
        (id) => ids.push(id),
      );
    }
    return events;
  };
  try {
    return await readWithin(read(), events, () => controller.abort());
  } finally {
    controller.abort();
  }
}

const audits = (events: LiveEvent[]) => events.filter((e) => e.event === 'audit');
const actionsOf = (events: LiveEvent[]) =>
  events
    .filter((e) => e.event === 'action')
    .map((e) => e.data as { session_id: string; outcome: string | null });

/** A tab that stops reading: its stream is opened, then nothing is read until `resume` is called. */
async function stuckTab(
  gw: TestGateway,
  follow: string,
): Promise<{ resume(enough: (events: LiveEvent[]) => boolean): Promise<LiveEvent[]> }> {
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http
      .get(
        `${gw.url}/v1/dashboard/events?session=${encodeURIComponent(follow)}`,
        { headers: { authorization: `Bearer ${gw.operatorKey}` } },
        resolve,
      )
      .on('error', reject);
  });
  assert.equal(response.statusCode, 200);
  response.pause();
  return {
    resume: (enough) => {
      const events: LiveEvent[] = [];
      const reading = new Promise<LiveEvent[]>((resolve, reject) => {
        let buffer = '';
        response.setEncoding('utf8');
        response.on('data', (text: string) => {
          buffer = parseEvents(buffer + text, (event) => events.push(event));
          if (!enough(events)) return;
          response.destroy();
          resolve(events);
        });
        response.on('error', reject);
        response.resume();
      });
      return readWithin(reading, events, () => response.destroy());
    },
  };
}

describe("the dashboard's live stream", () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({
      backend: new RecordingBackend(),
      config: { audit: { all_backends: true } },
    });
  });
  after(() => gw.close());

  const calls = async (sessionId: string, n: number) => {
    for (let i = 0; i < n; i++)
      assert.equal(
        (await gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_tabs`, { body: {} })).status,
        200,
      );
  };

  it('resumes after Last-Event-ID with every row written meanwhile, none twice', async () => {
    const sessionId = await gw.createSession('resume');
    await calls(sessionId, 3);
    const first = await readEvents(gw, { 'last-event-id': '0' }, (events) => audits(events).length >= 3);
    const seen = audits(first).map((e) => Number(e.id));
    assert.equal(seen.length, 3);
    assert.deepEqual(
      audits(first).map((e) => (e.data as { session_id: string }).session_id),
      [sessionId, sessionId, sessionId],
    );

    // Written while no stream is open: the reconnect must deliver them.
    await calls(sessionId, 4);
    const last = seen.at(-1) as number;
    const second = await readEvents(
      gw,
      { 'last-event-id': String(last) },
      (events) => audits(events).length >= 4,
    );
    const resumed = audits(second).map((e) => Number(e.id));
    assert.deepEqual(resumed, [last + 1, last + 2, last + 3, last + 4]);
  });

  it('names the row a new stream starts after, so a tab that got no row yet resumes without a gap', async () => {
    const sessionId = await gw.createSession('first-id');
    await calls(sessionId, 2);
    const newest = (
      await gw.request('GET', '/v1/dashboard/activity', {
        headers: { authorization: `Bearer ${gw.operatorKey}` },
      })
    ).body as { entries: { id: number }[] };
    const last = newest.entries[0]?.id as number;
    // A tab opened without Last-Event-ID, as the page's first stream on an empty log was: its first
    // block, with no data, carries the id a reconnect resumes from. Read up to the first write (its
    // session lines, which every stream starts with), so a first block without an id fails, not hangs.
    let ids: string[] = [];
    const emitted = await readEvents(
      gw,
      {},
      (events, heard) => (ids = heard).length > 0 || events.length > 0,
    );
    assert.deepEqual(ids, [String(last)]);
    assert.equal(audits(emitted).length, 0, 'the rows before the stream opened are not sent again');

    // Written after that stream closed (the page switching views): the reconnect from that id has it.
    await calls(sessionId, 1);
    const resumed = await readEvents(gw, { 'last-event-id': ids[0] as string }, (e) => audits(e).length >= 1);
    assert.deepEqual(
      audits(resumed).map((e) => Number(e.id)),
      [last + 1],
    );
  });

  it('sends each action of the session a tab follows as it starts and ends, and the session line', async () => {
    const sessionId = await gw.createSession('actions');
    let open = () => undefined as void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const events = readEvents(
      gw,
      {},
      (got) =>
        got.some((e) => e.event === 'action' && (e.data as { outcome: string | null }).outcome === 'ok'),
      open,
      sessionId,
    );
    await Promise.race([opened, events]);
    await calls(sessionId, 1);
    const got = await events;
    const actions = got
      .filter((e) => e.event === 'action')
      .map((e) => e.data as { tool: string; outcome: string | null });
    assert.deepEqual(actions.at(-1), { ...actions.at(-1), tool: 'browser_tabs', outcome: 'ok' });
    assert.ok(
      got.some((e) => e.event === 'session' && (e.data as { session_id: string }).session_id === sessionId),
    );
  });

  it('sends a tab that follows no session, or another one, every audit row and line but none of its actions', async () => {
    const [watched, busy] = [await gw.createSession('watched'), await gw.createSession('busy')];
    const opened: Promise<void>[] = [];
    const tab = (follow?: string) => {
      let open = () => undefined as void;
      opened.push(new Promise<void>((resolve) => (open = resolve)));
      return readEvents(gw, {}, (got) => audits(got).length >= 6, open, follow);
    };
    const [plain, following] = [tab(), tab(watched)];
    await Promise.all(opened);
    await calls(busy, 3);
    await calls(watched, 3);
    const [gotPlain, gotFollowing] = await Promise.all([plain, following]);
    assert.deepEqual(actionsOf(gotPlain), []);
    const lines = (got: LiveEvent[]) =>
      new Set(
        got.filter((e) => e.event === 'session').map((e) => (e.data as { session_id: string }).session_id),
      );
    assert.ok(lines(gotPlain).has(busy) && lines(gotPlain).has(watched));
    const followed = actionsOf(gotFollowing);
    assert.ok(followed.length >= 3, `the following tab got ${followed.length} actions`);
    assert.ok(followed.every((a) => a.session_id === watched));
    assert.equal(followed.filter((a) => a.outcome === 'ok').length, 3);
    assert.deepEqual(
      audits(gotPlain).map((e) => e.id),
      audits(gotFollowing).map((e) => e.id),
    );
  });

  it('sends a tab whose view shows no audit rows (audit=0) its session lines and actions, and no row', async () => {
    const sessionId = await gw.createSession('no rows');
    const opened: Promise<void>[] = [];
    const opener = () => {
      let open = () => undefined as void;
      opened.push(new Promise<void>((resolve) => (open = resolve)));
      return open;
    };
    const ended = (got: LiveEvent[]) => actionsOf(got).filter((a) => a.outcome === 'ok').length;
    const withRows = readEvents(gw, {}, (got) => audits(got).length >= 3, opener(), sessionId);
    const withoutRows = readEvents(gw, {}, (got) => ended(got) >= 4, opener(), sessionId, '0');
    await Promise.all(opened);
    await calls(sessionId, 3);
    assert.equal(audits(await withRows).length, 3);
    // Sent after the chunk that carried the three rows to the other tab: read up to it, this tab has
    // been sent all it ever will be for those calls.
    await calls(sessionId, 1);
    const got = await withoutRows;
    assert.deepEqual(audits(got), []);
    assert.equal(ended(got), 4);
    assert.ok(
      got.some((e) => e.event === 'session' && (e.data as { session_id: string }).session_id === sessionId),
    );
  });

  it('sends a tab that shows rows, opened after only tabs without rows were, each row after its id once', async () => {
    const sessionId = await gw.createSession('rows while unshown');
    const marker = await gw.createSession('marker');
    const owner = { authorization: `Bearer ${gw.operatorKey}` };
    const newest = async () =>
      (
        (await gw.request('GET', '/v1/dashboard/activity', { headers: owner })).body as {
          entries: { id: number }[];
        }
      ).entries[0]?.id ?? 0;
    const before = await newest();
    // Only a tab that shows no rows is open: the rows of these calls reach the hub, which sends them to
    // no one. It follows the marker, whose action, ended after the rows are in the log, comes in a
    // batch the hub built once it had them.
    let open = () => undefined as void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const markerEnded = (got: LiveEvent[]) =>
      actionsOf(got).some((a) => a.session_id === marker && a.outcome === 'ok');
    const withoutRows = readEvents(gw, {}, markerEnded, open, marker, '0');
    await opened;
    await calls(sessionId, 3);
    assert.equal(await newest(), before + 3);
    await calls(marker, 1);
    assert.deepEqual(audits(await withoutRows), []);

    // The Activity view opens from the last row the page had: the rows it missed, then the next one live.
    let live = () => undefined as void;
    const liveOpened = new Promise<void>((resolve) => (live = resolve));
    const withRows = readEvents(
      gw,
      { 'last-event-id': String(before) },
      (got) => audits(got).length >= 5,
      live,
    );
    await liveOpened;
    await calls(sessionId, 1);
    const rows = audits(await withRows);
    assert.deepEqual(
      rows.map((e) => Number(e.id)),
      [1, 2, 3, 4, 5].map((n) => before + n),
    );
    assert.deepEqual(
      rows.map((e) => (e.data as { session_id: string }).session_id),
      [sessionId, sessionId, sessionId, marker, sessionId],
    );
  });

  it('refuses an audit parameter other than 0 or 1 with 400 invalid_request', async () => {
    const response = await fetch(`${gw.url}/v1/dashboard/events?audit=no`, {
      headers: { authorization: `Bearer ${gw.operatorKey}` },
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'invalid_request');
  });

  it('refuses a session parameter that is not a session id with 400 invalid_request', async () => {
    const response = await fetch(`${gw.url}/v1/dashboard/events?session=${encodeURIComponent('a b/c')}`, {
      headers: { authorization: `Bearer ${gw.operatorKey}` },
    });
    assert.equal(response.status, 400);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'invalid_request');
  });

  it('sends every open tab that follows the session the same audit rows and actions, each once', async () => {
    const sessionId = await gw.createSession('three tabs');
    const opened: Promise<void>[] = [];
    const tabs = Array.from({ length: 3 }, () => {
      let open = () => undefined as void;
      opened.push(new Promise<void>((resolve) => (open = resolve)));
      return readEvents(gw, {}, (got) => audits(got).length >= 5, open, sessionId);
    });
    await Promise.all(opened);
    await calls(sessionId, 5);
    const got = await Promise.all(tabs);
    const ids = got.map((events) => audits(events).map((e) => Number(e.id)));
    assert.equal(new Set(ids[0]).size, 5);
    assert.deepEqual(ids[1], ids[0]);
    assert.deepEqual(ids[2], ids[0]);
    const ended = (events: LiveEvent[]) =>
      events.filter((e) => e.event === 'action' && (e.data as { outcome: string | null }).outcome === 'ok')
        .length;
    assert.deepEqual(got.map(ended).slice(1), [ended(got[0] as LiveEvent[]), ended(got[0] as LiveEvent[])]);
  });

  it('a tab that stopped reading gets a resync, then every audit row it missed once and in order', async () => {
    const sessionId = await gw.createSession('stuck');
    // Long addresses make each call's events some 25 KB for a tab that follows the session (its actions
    // as they start and end, and its audit row): enough to fill the stuck socket's buffers and what the
    // gateway keeps for it, so it loses events and must come back by its cursor.
    const CALLS = 600;
    const stuck = await stuckTab(gw, sessionId);
    let open = () => undefined as void;
    const opened = new Promise<void>((resolve) => (open = resolve));
    const reading = readEvents(gw, {}, (events) => audits(events).length >= CALLS, open);
    await Promise.race([opened, reading]);
    const url = `https://example.com/?q=${'word+'.repeat(1600)}`;
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next++ < CALLS) {
          const result = await gw.request('POST', `/v1/sessions/${sessionId}/tools/browser_navigate`, {
            body: { url },
          });
          assert.equal(result.status, 200);
        }
      }),
    );
    // The reading tab was not held back by the stuck one.
    assert.equal(audits(await reading).length, CALLS);
    const events = await stuck.resume((got) => audits(got).length >= CALLS);
    assert.ok(events.some((e) => e.event === 'resync'));
    const ids = audits(events).map((e) => Number(e.id));
    assert.equal(ids.length, CALLS);
    assert.ok(ids.every((id, i) => i === 0 || id === (ids[i - 1] as number) + 1));
    assert.ok(audits(events).every((e) => (e.data as { session_id: string }).session_id === sessionId));
  });

  it("refuses the agent's API key with 403 operator_required", async () => {
    const response = await fetch(`${gw.url}/v1/dashboard/events`, {
      headers: { authorization: `Bearer ${gw.key}` },
    });
    assert.equal(response.status, 403);
    assert.equal(((await response.json()) as { error: { code: string } }).error.code, 'operator_required');
  });
});
