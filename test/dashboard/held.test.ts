/**
 * The dashboard's held buttons (src/dashboard/held.ts): while its list has just changed, a button ignores
 * a pointer's press, never a key press (focus stays on its element wherever the list moves it).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { heldAttribute, unlessHeld } from '../../src/dashboard/held.js';

const click = (detail: number) => ({ detail }) as MouseEvent;

describe("the dashboard's held buttons", () => {
  it("ignores a pointer's press while held, and acts on a key press", () => {
    let acted = 0;
    const onClick = unlessHeld(true, () => acted++);
    onClick(click(1));
    assert.equal(acted, 0, 'a click on a button the list just moved');
    onClick(click(0));
    assert.equal(acted, 1, 'Enter or Space on the focused button');
  });

  it('acts on any press once the hold is over, and says held only while held', () => {
    let acted = 0;
    unlessHeld(false, () => acted++)(click(1));
    assert.equal(acted, 1);
    assert.equal(heldAttribute(true), 'true');
    assert.equal(heldAttribute(false), undefined);
  });
});
