/**
 * The dashboard's held buttons (src/dashboard/held.ts) on a clock the test moves: drawn `aria-disabled`
 * while their list has just changed, and a press judged when it comes — a pointer's ignored while held,
 * a key press never (focus stays on its element wherever the list moves it).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { heldButtons } from '../../src/dashboard/held.js';
import { HoldAfterChange } from '../../src/protocol/decision-hold.js';

const click = (detail: number) => ({ detail }) as MouseEvent;

describe("the dashboard's held buttons", () => {
  it("ignores a pointer's press while held, and acts on a key press", () => {
    let now = 0;
    const hold = new HoldAfterChange(() => now, 500);
    hold.changed();
    now = 100;
    const buttons = heldButtons(hold);
    assert.equal(buttons.attribute, 'true');
    let acted = 0;
    const onClick = buttons.press(() => acted++);
    onClick(click(1));
    assert.equal(acted, 0, 'a click on a button the list just moved');
    onClick(click(0));
    assert.equal(acted, 1, 'Enter or Space on the focused button');
  });

  it('judges a press when it comes: one after the hold counts though the buttons were drawn held', () => {
    let now = 0;
    const hold = new HoldAfterChange(() => now, 500);
    hold.changed();
    const drawn = heldButtons(hold);
    assert.equal(drawn.attribute, 'true');
    let acted = 0;
    const onClick = drawn.press(() => acted++);
    now = 500;
    onClick(click(1));
    assert.equal(acted, 1, 'the hold was over when the pointer pressed');
    assert.equal(heldButtons(hold).attribute, undefined, 'drawn again, the buttons are not held');
  });
});
