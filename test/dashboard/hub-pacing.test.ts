/**
 * How often the dashboard's hub sends its open tabs a batch: the first change after a quiet spell leaves
 * 25 ms after it, so a person watching sees an agent's action at once; under a steady stream of calls a
 * batch leaves at most every 100 ms, so what the tabs cost does not grow with the call rate. Driven on a
 * manual clock: nothing here sleeps or measures time.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SessionActivity } from '../../src/gateway/activity/session-activity.js';
import { InFlightCalls } from '../../src/gateway/in-flight-calls.js';
import type { DashboardDeps } from '../../src/gateway/http/routes/dashboard-api.js';
import { DashboardHub, type HubStream } from '../../src/gateway/http/routes/dashboard-hub.js';
import type { Caller, SessionRecord } from '../../src/gateway/service.js';
import { ManualClock } from '../helpers/manual-clock.js';

const owner: Caller = {
  principalId: 'owner',
  profileId: 'default',
  credential: 'operator',
  transportFamily: 'local-api',
};

const session: SessionRecord = {
  session_id: 'sess_pacedpacedpacedpacedpace',
  title: 'paced',
  created_at: new Date(Date.UTC(2026, 0, 1)).toISOString(),
  source: 'api',
  binding: null,
  stopped_at: null,
};

/** A hub with one tab that writes each chunk as it comes; its session lines are what the test reads. */
async function openHub() {
  const clock = new ManualClock();
  const activity = new SessionActivity(clock);
  // The session and the (empty) audit log as the hub reads them; the pacing is what is under test.
  const deps = {
    sessions: { find: () => Promise.resolve(session), list: () => Promise.resolve([session]) },
    inFlight: new InFlightCalls(),
    activity,
    audit: {
      list: () => Promise.resolve([]),
      listFolded: () => Promise.resolve([]),
      onFolded: () => () => undefined,
    },
    backendName: 'local',
    timers: clock,
  } as unknown as DashboardDeps;
  const hub = await DashboardHub.open(deps, owner);
  activity.subscribe((entry) => hub.action(entry));
  const batches: string[] = [];
  const tab: HubStream & { next: number } = {
    next: hub.end,
    follows: null,
    auditCursor: null,
    pump() {
      for (let chunk = hub.chunk(this.next); chunk; chunk = hub.chunk(++this.next)) batches.push(chunk.head);
    },
    close: () => undefined,
  };
  hub.streams.add(tab);
  /** Moves time on by `ms`, then lets a batch that fell due be built and written. */
  const advance = async (ms: number) => {
    clock.advance(ms);
    await new Promise((resolve) => setImmediate(resolve));
  };
  /** An agent's call in the session, begun and ended now. */
  const call = () => activity.begin(session.session_id, 'browser_tabs', {})(null, { tabs: [] });
  return { hub, batches, advance, call };
}

test('sends the first change after a quiet spell 25 ms after it, then batches at most every 100 ms', async () => {
  const { hub, batches, advance, call } = await openHub();
  try {
    // The hub's first batch (nothing changed since it read every line).
    await advance(25);
    assert.deepEqual(batches, []);

    call();
    await advance(99);
    assert.deepEqual(batches, [], 'a batch left less than 100 ms after the last one');
    await advance(1);
    assert.equal(batches.length, 1);
    assert.match(batches[0] ?? '', new RegExp(`"session_id":"${session.session_id}"`));

    // Calls keep coming, one every 5 ms for 200 ms: a batch per 100 ms, not one per 25.
    for (let i = 0; i < 40; i++) {
      call();
      await advance(5);
    }
    assert.equal(batches.length, 3);

    // Quiet for longer than the interval: the next change leaves 25 ms after it again.
    await advance(400);
    call();
    await advance(24);
    assert.equal(batches.length, 3);
    await advance(1);
    assert.equal(batches.length, 4);
  } finally {
    hub.close();
  }
});
