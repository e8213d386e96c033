/**
 * The hold on decision buttons after their list changed (src/protocol/decision-hold.ts, the rule of the
 * popup and the dashboard alike), on a clock the test moves: a press counts only once the list has been
 * still for the whole hold.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOLD_MS, HoldAfterChange } from '../../src/protocol/decision-hold.js';

describe('the hold on decision buttons', () => {
  it('counts a press at once before any list changed', () => {
    assert.equal(new HoldAfterChange(() => 0).remaining(), 0);
  });

  it('holds the buttons for the whole hold after a change, then lets them answer', () => {
    let now = 1_000;
    const hold = new HoldAfterChange(() => now);
    hold.changed();
    assert.equal(hold.remaining(), HOLD_MS);
    now += HOLD_MS - 1;
    assert.equal(hold.remaining(), 1);
    now += 1;
    assert.equal(hold.remaining(), 0);
  });

  it("ignores a pointer's press while held, never a key press, and neither once the hold is over", () => {
    let now = 0;
    const hold = new HoldAfterChange(() => now, 500);
    hold.changed();
    now = 100;
    assert.equal(hold.ignores({ detail: 1 }), true, 'a click while the list just moved');
    assert.equal(hold.ignores({ detail: 0 }), false, 'Enter or Space on the focused button');
    now = 500;
    assert.equal(hold.ignores({ detail: 1 }), false);
  });

  it('starts the hold over with each change, so a list that keeps moving keeps its buttons held', () => {
    let now = 0;
    const hold = new HoldAfterChange(() => now, 500);
    hold.changed();
    now = 400;
    hold.changed();
    now = 800;
    assert.equal(hold.remaining(), 100, 'the second change counts, not the first');
    now = 900;
    assert.equal(hold.remaining(), 0);
  });
});
