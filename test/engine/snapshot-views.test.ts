/**
 * Parts of a snapshot an agent asks for: one element's subtree (`ref`), the lines that mention a text
 * (`find`), and the outline a long page's first answer and `browser_navigate` carry.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { NavigateResult, SnapshotResult } from '../../src/protocol/index.js';
import { isTabgateError } from '../../src/protocol/index.js';
import { html, startSnapshotSite, type SnapshotSite } from './snapshot-site.js';

const stories = (part: string) =>
  Array.from({ length: 150 }, (_, i) => `<li><a href="/${part}/${i}">${part} story ${i}</a></li>`).join('');

const PAGES = {
  '/shop': html(
    'Shop',
    `<nav aria-label="Main"><a href="/">Home</a> <a href="/deals">Deals</a></nav>
    <main><h1>Fruit</h1>
      <div class="card" tabindex="0"><p>Fresh apples from the valley</p><a href="/apples">Buy apples</a></div>
      <div class="card" tabindex="0"><p>Ripe pears</p><a href="/pears">Buy pears</a></div>
      <form aria-label="Newsletter"><label>Email <input name="email"></label><button>Send me apple news</button></form>
    </main>`,
  ),
  '/long': html(
    'Long',
    `<header><a href="/">Logo</a></header>
    <main><h1>Archive</h1><h2>World</h2><ul>${stories('world')}</ul><h2>Sport</h2><ul>${stories('sport')}</ul>
    <h2>Culture</h2><ul>${stories('culture')}</ul></main>
    <footer><form role="search"><input type="search" aria-label="Search the archive"></form></footer>`,
  ),
};

const inner = (text: string) =>
  text.replace(/^<page-text [^\n]*\n/, '').replace(/\n<\/page-text [^\n]*(\n…[^\n]*)?$/, '');
const refsIn = (text: string) => text.match(/@e\d+/g) ?? [];

describe('snapshot views', () => {
  let site: SnapshotSite;
  const snap = async (args: Record<string, unknown> = {}) =>
    (await site.call('browser_snapshot', args)) as SnapshotResult;
  before(async () => {
    site = await startSnapshotSite(() => PAGES, { snapshotMaxChars: 4000 });
  });
  after(async () => {
    await site.close();
  });

  it('ref shows that element and everything inside it, refs as in the whole snapshot', async () => {
    await site.call('browser_navigate', { url: site.url('/shop') });
    const whole = (await snap()).snapshot;
    const card = /clickable (@e\d+):\n\s+Fresh apples/.exec(whole)?.[1] ?? '';
    const part = await snap({ ref: card });
    assert.equal(
      inner(part.snapshot),
      `  clickable ${card}:\n    Fresh apples from the valley\n    link "Buy apples" ${/link "Buy apples" (@e\d+)/.exec(whole)?.[1]}`,
    );
    assert.equal(part.ref_count, 2);
  });

  it('find keeps the matching lines under their containers, with their refs', async () => {
    await site.call('browser_navigate', { url: site.url('/shop') });
    const whole = (await snap()).snapshot;
    const found = await snap({ find: 'APPLE' });
    const lines = inner(found.snapshot).split('\n');
    assert.deepEqual(
      lines.map((line) => line.trim().replace(/ @e\d+/, '')),
      [
        'main:',
        'clickable:',
        'Fresh apples from the valley',
        'link "Buy apples" → /apples',
        'form "Newsletter":',
        'button "Send me apple news"',
      ],
    );
    for (const ref of refsIn(found.snapshot)) assert.match(whole, new RegExp(`${ref}(?!\\d)`));
    assert.doesNotMatch(found.snapshot, /pears|Email|Deals/);
  });

  it('find with no match answers an empty outline and a hint, not an error', async () => {
    await site.call('browser_navigate', { url: site.url('/shop') });
    const found = await snap({ find: 'bananas' });
    assert.equal(found.snapshot, '');
    assert.equal(found.ref_count, 0);
    assert.match(found.hint ?? '', /No line contains "bananas"/);
  });

  it('a ref the page does not know fails as stale_ref', async () => {
    await site.call('browser_navigate', { url: site.url('/shop') });
    await assert.rejects(
      snap({ ref: '@e99999' }),
      (error) => isTabgateError(error) && error.code === 'stale_ref',
    );
  });

  it('rejects an empty find and an unknown snapshot mode, naming the field', async () => {
    await assert.rejects(snap({ find: '' }), (error) => isTabgateError(error) && /find/.test(error.message));
    await assert.rejects(
      site.call('browser_navigate', { url: site.url('/shop'), snapshot: 'everything' }),
      (error) =>
        isTabgateError(error) && error.code === 'invalid_arguments' && /snapshot/.test(error.message),
    );
  });

  it('the first answer of a long page outlines every later section with its controls and offset', async () => {
    await site.call('browser_navigate', { url: site.url('/long') });
    const first = await snap();
    assert.equal(first.truncated, true);
    assert.ok(first.snapshot.length <= 4000);
    const outline = /Outline: [^\n]*\n((?:- [^\n]*\n)+)/.exec(first.snapshot);
    assert.ok(outline, first.snapshot);
    const entries = [...(outline[1] ?? '').matchAll(/- (.*) — (\d+) controls?, offset=(\d+)/g)];
    const shown = refsIn(first.snapshot.slice(first.snapshot.indexOf('\n\n'))).length;
    const counted = entries.reduce((sum, entry) => sum + Number(entry[2]), 0);
    assert.equal(shown + counted, first.ref_count, 'every control is shown or counted in the outline');
    assert.ok(entries.some((entry) => entry[1] === '## Culture'));
    // The search box at the bottom comes with the first answer.
    assert.match(first.snapshot, /searchbox "Search the archive" @e\d+/);
    // An entry's offset reads that section.
    const culture = entries.find((entry) => entry[1] === '## Culture');
    const there = await snap({ offset: Number(culture?.[3]) });
    assert.match(inner(there.snapshot), /^ {2}## Culture\n {2}link "culture story 0"/);
  });

  it('navigate returns the outline by default, the first page with full, nothing with none', async () => {
    const outline = (await site.call('browser_navigate', { url: site.url('/long') })) as NavigateResult;
    assert.match(outline.snapshot?.snapshot ?? '', /Outline: [\s\S]*\n- ## World — 150 controls, offset=\d+/);
    assert.ok((outline.snapshot?.snapshot.length ?? 0) < 1500);
    const full = (await site.call('browser_navigate', {
      url: site.url('/long'),
      snapshot: 'full',
    })) as NavigateResult;
    assert.match(full.snapshot?.snapshot ?? '', /link "world story 0" @e\d+/);
    const none = (await site.call('browser_navigate', {
      url: site.url('/long'),
      snapshot: 'none',
    })) as NavigateResult;
    assert.equal(none.snapshot, undefined);
    assert.equal(none.title, 'Long');
  });

  it('navigate shows a small page whole, refs included', async () => {
    const result = (await site.call('browser_navigate', { url: site.url('/shop') })) as NavigateResult;
    assert.match(result.snapshot?.snapshot ?? '', /button "Send me apple news" @e\d+/);
  });
});
