/**
 * Reading on through a long snapshot (`offset`) reads the walk the first answer made for as long as
 * nothing on the page changed, and a new walk as soon as anything did: a DOM change, a value typed, a
 * change inside a shadow root. What the agent reads on is never older than the page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SnapshotResult } from '../../src/protocol/index.js';
import { html, startSnapshotSite, type SnapshotSite } from './snapshot-site.js';

const filler = `<ul>${Array.from(
  { length: 100 },
  (_, i) => `<li><a href="/entry?n=${i}">Entry ${i} of the list</a></li>`,
).join('')}</ul>`;

const page = html(
  'Reading on',
  `<h1>Reading on</h1>${filler}
  <section aria-label="Live">
    <button onclick="const p = document.createElement('p'); p.textContent = 'Grown ' + (document.querySelectorAll('.grown').length + 1); p.className = 'grown'; this.after(p)">Grow</button>
    <input aria-label="Note">
    <input type="checkbox" aria-label="Agree">
    <p class="host"><button>Hover me</button> <span class="tip">Tip shown on hover</span></p>
    <shadow-box></shadow-box>
  </section>
  <style>.tip { visibility: hidden } .host:hover .tip { visibility: visible }</style>
  <script>
    customElements.define('shadow-box', class extends HTMLElement {
      connectedCallback() {
        const root = this.attachShadow({ mode: 'open' });
        root.innerHTML = '<p>Shadow says: one</p><button>Change shadow</button>';
        root.querySelector('button').onclick = () => { root.querySelector('p').textContent = 'Shadow says: two'; };
      }
    });
  </script>`,
);

describe('reading on through a long snapshot', () => {
  let site: SnapshotSite;
  before(async () => {
    site = await startSnapshotSite(() => ({ '/live': page }), { snapshotMaxChars: 2_500 });
  });
  after(() => site.close());

  const snapshot = (args: Record<string, unknown> = {}) =>
    site.call('browser_snapshot', args) as Promise<SnapshotResult>;
  /** The offset of the answer that shows the live section, read on from the first answer. */
  const liveOffset = async () => {
    let answer = await snapshot();
    while (answer.next_offset !== null) {
      const offset = answer.next_offset;
      answer = await snapshot({ offset });
      if (answer.snapshot.includes('button "Grow"')) return offset;
    }
    assert.fail('the live section is past the first answer');
  };
  const refOf = (text: string, label: string) => {
    const ref = new RegExp(`${label} (@e\\d+)`).exec(text)?.[1];
    assert.ok(ref, `${label} in ${text}`);
    return ref;
  };

  it('shows every change of the page on the pages read after it, and the same text while none', async () => {
    await site.call('browser_navigate', { url: site.url('/live') });
    const offset = await liveOffset();
    const live = await snapshot({ offset });
    assert.match(live.snapshot, /Shadow says: one/);
    assert.doesNotMatch(live.snapshot, /Grown/);
    assert.equal(
      (await snapshot({ offset })).snapshot.replace(/nonce="[^"]+"/g, ''),
      live.snapshot.replace(/nonce="[^"]+"/g, ''),
    );

    await site.call('browser_click', { ref: refOf(live.snapshot, 'button "Grow"') });
    assert.match((await snapshot({ offset })).snapshot, /Grown 1/);

    await site.call('browser_type', { ref: refOf(live.snapshot, 'textbox "Note"'), text: 'hello' });
    assert.match((await snapshot({ offset })).snapshot, /textbox "Note" @e\d+ (\[focused\] )?= "hello"/);

    await site.call('browser_click', { ref: refOf(live.snapshot, 'button "Change shadow"') });
    const after = (await snapshot({ offset })).snapshot;
    assert.match(after, /Shadow says: two/);
    assert.match(after, /Grown 1/);
  });

  it('answers from the walk navigate made while nothing changed, and its refs act on their elements', async () => {
    await site.call('browser_navigate', { url: site.url('/live') });
    const offset = await liveOffset();
    const first = await snapshot();
    const again = await snapshot();
    assert.equal(again.snapshot.replace(/nonce="[^"]+"/g, ''), first.snapshot.replace(/nonce="[^"]+"/g, ''));
    const live = (await snapshot({ offset })).snapshot;
    await site.call('browser_click', { ref: refOf(live, 'button "Grow"') });
    const grown = (await snapshot({ offset })).snapshot;
    assert.match(grown, /button "Grow" @e\d+ \[focused\]\nGrown 1/);
    assert.equal(refOf(grown, 'button "Grow"'), refOf(live, 'button "Grow"'));
    await site.call('browser_click', { ref: refOf(grown, 'checkbox "Agree"') });
    assert.match((await snapshot({ offset })).snapshot, /checkbox "Agree" @e\d+ \[checked/);
  });

  it('sees what changes without a DOM mutation: focus and hover', async () => {
    await site.call('browser_navigate', { url: site.url('/live') });
    const offset = await liveOffset();
    const live = (await snapshot({ offset })).snapshot;
    assert.doesNotMatch(live, /\[focused\]|Tip shown/);
    await site.call('browser_hover', { ref: refOf(live, 'button "Hover me"') });
    assert.match((await snapshot({ offset })).snapshot, /button "Hover me" @e\d+ Tip shown on hover/);
    await site.call('browser_click', { ref: refOf(live, 'textbox "Note"') });
    assert.match(
      (await snapshot()).snapshot + (await snapshot({ offset })).snapshot,
      /textbox "Note" @e\d+ \[focused\]/,
    );
  });

  it('reads a new document on, never the walk of the one before', async () => {
    await site.call('browser_navigate', { url: site.url('/live') });
    const offset = await liveOffset();
    await site.call('browser_click', { ref: refOf((await snapshot({ offset })).snapshot, 'button "Grow"') });
    assert.match((await snapshot({ offset })).snapshot, /Grown 1/);
    await site.call('browser_navigate', { url: site.url('/live') });
    assert.doesNotMatch((await snapshot({ offset })).snapshot, /Grown/);
  });
});
