/**
 * The outline of a long page's later sections: every control counted once, at most one screen long,
 * and each entry's offset the start of what it counts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { outlineBudget, outlineOf } from '../../src/engine/snapshot-outline.js';

let ref = 0;
const links = (count: number) =>
  Array.from({ length: count }, () => `  link "Story ${++ref}" @e${ref} → /s/${ref}`).join('\n');
const text = [
  'searchbox "Search" @e0',
  ...Array.from({ length: 300 }, (_, i) => `## Topic ${i}\n${links(5)}`),
  'search:',
  '  searchbox "Search the archive" @e9999',
].join('\n');
const entriesOf = (outline: string) =>
  [...outline.matchAll(/^- (.*) — (\d+) controls?, offset=(\d+)$/gm)].map(([, label, count, offset]) => ({
    label: label ?? '',
    count: Number(count),
    offset: Number(offset),
  }));

describe('snapshot outline', () => {
  it('counts every control after the shown part exactly once, whatever it has to join', () => {
    const shownUpTo = text.indexOf('## Topic 40\n');
    const outline = outlineOf(text, shownUpTo, 15_000);
    const entries = entriesOf(outline);
    const later = text.slice(shownUpTo).match(/@e\d+/g)?.length;
    assert.equal(
      entries.reduce((sum, entry) => sum + entry.count, 0),
      later,
    );
    assert.ok(entries.length <= 40);
    assert.ok(outline.length <= outlineBudget(15_000));
    assert.match(entries[0]?.label ?? '', /^## Topic 40 … ## Topic \d+ \(\d+ parts\)$/);
    assert.equal(entries[0]?.offset, shownUpTo);
  });

  it('points each entry at the line its section starts on, and lists search fields further down', () => {
    const outline = outlineOf(text, 0, 15_000);
    for (const entry of entriesOf(outline).slice(1)) assert.equal(text[entry.offset - 1], '\n');
    assert.match(
      outline,
      /Search fields further down:\n {2}searchbox "Search" @e0\n {2}searchbox "Search the archive" @e9999/,
    );
  });

  it('stays within a small budget by joining more', () => {
    const outline = outlineOf(text, 0, 2_000);
    assert.ok(outline.length <= outlineBudget(2_000), `${outline.length}`);
    assert.ok(entriesOf(outline).length >= 1);
  });
});
