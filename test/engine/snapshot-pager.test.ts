import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pageSnapshot } from '../../src/engine/index.js';

const text = Array.from({ length: 100 }, (_, i) => `line ${i} ${'x'.repeat(30)}`).join('\n');

describe('snapshot pager', () => {
  it('returns a text within the budget whole', () => {
    assert.deepEqual(pageSnapshot('a\nb', 0, 100), {
      snapshot: 'a\nb',
      truncated: false,
      total_chars: 3,
      offset: 0,
      next_offset: null,
    });
  });

  it('cuts at a line boundary, says what was left out and where to continue', () => {
    const page = pageSnapshot(text, 0, 1000);
    assert.ok(page.snapshot.length <= 1000);
    assert.equal(page.truncated, true);
    const body = page.snapshot.slice(0, page.snapshot.indexOf('\n…'));
    assert.ok(text.startsWith(body + '\n'));
    assert.equal(page.next_offset, body.length + 1);
    assert.match(page.snapshot, new RegExp(`offset=${page.next_offset}`));
  });

  it('pages through the whole text without losing or repeating a character', () => {
    const parts: string[] = [];
    let offset: number | null = 0;
    while (offset !== null) {
      const page = pageSnapshot(text, offset, 700);
      parts.push(
        page.next_offset === null ? page.snapshot : page.snapshot.slice(0, page.snapshot.indexOf('\n…')),
      );
      offset = page.next_offset;
    }
    assert.equal(parts.join('\n'), text);
  });

  it('cuts a single line longer than the budget mid-line rather than never showing it', () => {
    const page = pageSnapshot('y'.repeat(5000), 0, 1000);
    assert.ok(page.snapshot.length <= 1000);
    assert.ok(page.next_offset !== null && page.next_offset > 0);
  });

  it('cuts a line longer than the budget between controls, never inside one', () => {
    const pieces = Array.from({ length: 200 }, (_, i) => `link "L${i}" @e${i + 1} → /l${i}`);
    const controls: [number, number][] = [];
    let line = '';
    for (const piece of pieces) {
      if (line) line += ' ';
      controls.push([line.length, line.length + piece.length]);
      line += piece;
    }
    let offset: number | null = 0;
    let joined = '';
    while (offset !== null) {
      const page = pageSnapshot(line, offset, 1000, controls);
      assert.ok(page.snapshot.length <= 1000);
      const body =
        page.next_offset === null ? page.snapshot : page.snapshot.slice(0, page.snapshot.indexOf('\n…'));
      for (const [start, end] of controls) {
        const from = page.offset;
        const to = from + body.length;
        assert.ok(end <= from || start >= to || (start >= from && end <= to), `control ${start} is cut`);
      }
      joined += body;
      offset = page.next_offset;
    }
    assert.equal(joined, line);
  });

  it('fills the page before a line that alone is longer than the budget', () => {
    const long = Array.from({ length: 300 }, (_, i) => `word${i}`).join(' ');
    const page = pageSnapshot(`# Title\n${long}`, 0, 1000);
    assert.ok(page.snapshot.length <= 1000);
    assert.ok(page.snapshot.indexOf('\n…') > 500);
    assert.match(page.snapshot, /^# Title\nword0 word1 /);
  });

  it('still cuts at the line break when the next line fits on a page of its own', () => {
    const lines = ['a'.repeat(300), 'b'.repeat(800)].join('\n');
    const page = pageSnapshot(lines, 0, 1000);
    assert.equal(page.next_offset, 301);
  });

  it('cuts a single control longer than the budget after its ref', () => {
    const piece = `combobox "Pick" @e7 options: ${Array.from({ length: 400 }, (_, i) => `option ${i}`).join(' | ')}`;
    const page = pageSnapshot(piece, 0, 1000, [[0, piece.length]]);
    assert.match(page.snapshot, /^combobox "Pick" @e7 options: /);
    assert.ok(page.next_offset !== null && piece[page.next_offset - 1] === ' ');
  });

  it('says "1 more line" of a single line left out', () => {
    const page = pageSnapshot(`${'a'.repeat(500)}\n${'b'.repeat(500)}`, 0, 1000);
    assert.match(page.snapshot, /… 1 more line \(500 chars\) not shown/);
  });

  it('an offset past the end gives an empty page', () => {
    assert.deepEqual(pageSnapshot('abc', 10, 100), {
      snapshot: '',
      truncated: true,
      total_chars: 3,
      offset: 3,
      next_offset: null,
    });
  });
});
