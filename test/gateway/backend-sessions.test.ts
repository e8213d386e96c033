/**
 * The session table both browser backends (engine, provider) keep: admission to a session slot, and the
 * idle sweep that closes a session unused past browser.inactivity_timeout and tells its next call once.
 * Time is a manual clock, stepped past each bound.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Admission } from '../../src/gateway/backends/admission.js';
import { SessionTable } from '../../src/gateway/backends/session-table.js';
import { DEFAULT_BROWSER_SETTINGS } from '../../src/gateway/config/browser-settings.js';
import type { TabgateError } from '../../src/protocol/index.js';
import { ManualClock, settledNow } from '../helpers/manual-clock.js';

const IDLE_MS = DEFAULT_BROWSER_SETTINGS.inactivityTimeoutSeconds * 1000;
/** Past the timeout by one sweep (a quarter of it, at most 30 s). */
const PAST_IDLE_MS = IDLE_MS + Math.min(30_000, IDLE_MS / 4);

function table(o: { maxSessions?: number } = {}) {
  const clock = new ManualClock();
  const settings = { ...DEFAULT_BROWSER_SETTINGS, maxSessions: o.maxSessions ?? 4 };
  const closed: string[] = [];
  const sessions: SessionTable<{ opened: boolean }> = new SessionTable({
    admission: new Admission(settings, clock),
    clock,
    settings,
    hadBrowser: (data) => data.opened,
    closeIdle: async (sessionId) => {
      sessions.take(sessionId)?.release();
      closed.push(sessionId);
    },
  });
  const open = (id: string) => sessions.admit(id, undefined, () => ({ opened: true }));
  return { clock, sessions, closed, open };
}

const notices = async (run: Promise<unknown>) => ((await run) as { notices?: string[] }).notices ?? [];

describe('the session table', () => {
  it('keeps an idle session through inactivity_timeout, then closes it and tells its next call once', async () => {
    const { clock, sessions, closed, open } = table();
    const entry = open('s');
    await entry.admitted;
    await sessions.use(entry, async () => undefined);
    clock.advance(IDLE_MS);
    assert.deepEqual(closed, []);
    clock.advance(PAST_IDLE_MS - IDLE_MS);
    assert.deepEqual(closed, ['s']);
    const first = await notices(sessions.deliver('s', Promise.resolve({})));
    assert.match(first[0] ?? '', /^session_reset: .*idle.*about:blank/);
    assert.deepEqual(await notices(sessions.deliver('s', Promise.resolve({}))), []);
    sessions.stop();
  });

  it('never closes a session while one of its calls runs, however long it takes', async () => {
    const { clock, sessions, closed, open } = table();
    const entry = open('s');
    await entry.admitted;
    let finish = () => undefined as void;
    const running = sessions.use(entry, () => new Promise<void>((resolve) => (finish = resolve)));
    clock.advance(PAST_IDLE_MS * 3);
    assert.deepEqual(closed, []);
    finish();
    await running;
    clock.advance(IDLE_MS);
    assert.deepEqual(closed, []);
    clock.advance(PAST_IDLE_MS - IDLE_MS);
    assert.deepEqual(closed, ['s']);
    sessions.stop();
  });

  it('gives a freed session slot to the session that waited, and refuses one that waited too long', async () => {
    const { clock, sessions, open } = table({ maxSessions: 1 });
    await open('a').admitted;
    const waiting = open('b');
    sessions.take('a')?.release();
    await waiting.admitted;
    const late = open('c');
    clock.advance((DEFAULT_BROWSER_SETTINGS.commandTimeoutSeconds * 1000) / 3);
    await assert.rejects(late.admitted, (error: unknown) => (error as TabgateError).code === 'browser_busy');
    assert.equal(sessions.get('c'), undefined, 'a refused session leaves the table');
    sessions.stop();
  });

  it('lets a session closed while it waited give up its place without taking a slot', async () => {
    const { sessions, open } = table({ maxSessions: 1 });
    const first = open('a');
    await first.admitted;
    const waiting = open('b');
    sessions.take('b');
    first.release();
    await assert.rejects(
      waiting.admitted,
      (error: unknown) => (error as TabgateError).code === 'backend_unavailable',
    );
    const next = open('c');
    assert.equal(await settledNow(next.admitted), true, 'the slot was free for the next session');
    sessions.stop();
  });
});
