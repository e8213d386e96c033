/**
 * The dashboard's in-memory timelines stay bounded by dropping the session idle longest, never one that
 * keeps acting: a person watching a busy session must not see its timeline vanish because many other
 * sessions came and went.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SESSIONS, SessionActivity } from '../../src/gateway/activity/session-activity.js';

const clock = { now: () => Date.UTC(2026, 11, 4) };

test('past its bound, the session idle longest loses its timeline, not the first one that ever acted', () => {
  const activity = new SessionActivity(clock);
  const act = (sessionId: string) => activity.begin(sessionId, 'browser_tabs', {})(null, { tabs: [] });
  act('busy');
  for (let i = 1; i < SESSIONS; i++) act(`other-${i}`);
  // The bound is reached; the busy session acts again, so `other-1` is now the one idle longest.
  act('busy');
  act('newcomer');
  assert.deepEqual(
    activity.timeline('busy').map((entry) => entry.outcome),
    ['ok', 'ok'],
  );
  assert.equal(activity.timeline('other-1').length, 0);
  assert.equal(activity.timeline('other-2').length, 1);
  assert.equal(activity.timeline('newcomer').length, 1);
});
