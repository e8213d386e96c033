/**
 * `browser_read`: the article of a page as clean text, paged, with its links still clickable, and the
 * site's menus, sidebars and footers left out.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SnapshotResult } from '../../src/protocol/index.js';
import { html, startSnapshotSite, type SnapshotSite } from './snapshot-site.js';

const sentences = Array.from(
  { length: 24 },
  (_, i) =>
    `Finding ${i + 1} of the survey shows that river otters returned to stretch ${i + 1} of the valley.`,
);
const menu = Array.from({ length: 40 }, (_, i) => `<li><a href="/section/${i}">Section ${i}</a></li>`).join(
  '',
);
const ARTICLE = html(
  'Otters',
  `<header class="masthead"><a href="/">Daily Valley</a><nav><ul>${menu}</ul></nav></header>
  <div class="layout"><main>
    <h1>Otters are back</h1>
    <div tabindex="0" onclick="void 0" class="story-body">
      <p>${sentences.slice(0, 3).join(' ')} Read the <a href="/report">full report</a> for the method.</p>
      ${sentences
        .slice(3, 20)
        .map((s) => `<p>${s.replace('otters', 'ot<em>ters</em>')}</p>`)
        .join('')}
      <h2>What comes next</h2>
      <ul>${sentences
        .slice(20)
        .map((s) => `<li>${s}</li>`)
        .join('')}</ul>
      <div class="share-tools">Share this story on every network you know</div>
    </div>
  </main>
  <aside class="sidebar"><h2>Most read</h2><ul>${menu}</ul></aside></div>
  <footer>Copyright Daily Valley, all the rights in the world reserved.</footer>`,
);

const bodyOf = (answer: SnapshotResult) =>
  answer.snapshot.replace(/^<page-text [^\n]*\n/, '').replace(/\n<\/page-text [^\n]*(\n…[^\n]*)?$/, '');

describe('browser_read', () => {
  let site: SnapshotSite;
  const read = async (args: Record<string, unknown> = {}) =>
    (await site.call('browser_read', args)) as SnapshotResult;
  before(async () => {
    site = await startSnapshotSite(() => ({ '/story': ARTICLE }), { snapshotMaxChars: 1500 });
  });
  after(async () => {
    await site.close();
  });

  it('reads every sentence of the article in order, across pages, and nothing of the site around it', async () => {
    await site.call('browser_navigate', { url: site.url('/story'), snapshot: 'none' });
    const parts: string[] = [];
    let answer = await read();
    parts.push(bodyOf(answer));
    while (answer.next_offset !== null) {
      assert.ok(answer.snapshot.length <= 1500);
      assert.match(answer.snapshot, /call browser_read with offset=\d+ to read on\.$/);
      answer = await read({ offset: answer.next_offset });
      parts.push(bodyOf(answer));
    }
    const text = parts.join('\n');
    assert.equal(text.length, answer.total_chars);
    assert.match(text, /^# Otters are back\n/);
    let at = 0;
    for (const sentence of sentences) {
      const found = text.indexOf(sentence.replace(/\.$/, ''), at);
      assert.ok(found >= at, `missing or out of order: ${sentence}`);
      at = found;
    }
    assert.match(text, /\n## What comes next\n- Finding 21/);
    assert.doesNotMatch(text, /Section 3|Most read|Copyright|Share this story|Daily Valley/);
  });

  it('keeps links in place as refs a click can use', async () => {
    await site.call('browser_navigate', { url: site.url('/story'), snapshot: 'none' });
    const text = bodyOf(await read());
    const ref = /Read the \[full report\]\((@e\d+)\) for the method\./.exec(text)?.[1];
    assert.ok(ref, text);
    await site.call('browser_click', { ref });
    const page = (await site.call('browser_snapshot', {})) as SnapshotResult;
    assert.equal(page.url, site.url('/report'));
  });
});
