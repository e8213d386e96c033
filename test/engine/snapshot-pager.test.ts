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
