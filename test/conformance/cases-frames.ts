import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fullText, refAfter, snapshot } from './helpers.js';
import { withSession } from './session-fixture.js';
import type { HarnessRef } from './harness.js';

/** The n-th ref written after `label`, for pages where two frames hold the same controls. */
function nthRef(text: string, label: string, n: number): string {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const refs = [...text.matchAll(new RegExp(`${escaped} (@e\\d+)`, 'g'))].map((m) => m[1] ?? '');
  assert.ok(refs[n], `no ref #${n} for ${label} in:\n${text}`);
  return refs[n];
}

export function frameCases(get: HarnessRef): void {
  describe('frames and shadow DOM', () => {
    it(
      'includes both iframes, same- and cross-origin, under their iframe line',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/frames') });
        const text = (await snapshot(s)).snapshot;
        assert.match(text, /iframe "Same origin":\n {2}Inside a frame\n {2}button "Inner button" @e\d+/);
        assert.match(
          text,
          /iframe "Cross origin" from http:\/\/[^\s:]+:\d+:\n {2}Inside a frame\n {2}button "Inner button" @e\d+/,
        );
      }),
    );

    it(
      'clicks inside a same-origin iframe with a trusted click',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/frames') });
        await s.call('browser_click', {
          ref: nthRef((await snapshot(s)).snapshot, 'button "Inner button"', 0),
        });
        const text = await fullText(s);
        assert.match(text, /iframe "Same origin":\n(.*\n)*? {2}.*inner clicked trusted=true/);
      }),
    );

    it(
      'clicks and types inside a cross-origin iframe',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/frames') });
        const text = (await snapshot(s)).snapshot;
        await s.call('browser_type', { ref: nthRef(text, 'textbox "Inner field"', 1), text: 'across' });
        await s.call('browser_click', { ref: nthRef(text, 'button "Inner button"', 1) });
        const after = await fullText(s);
        const cross = after.slice(after.indexOf('iframe "Cross origin"'));
        assert.match(cross, /inner clicked trusted=true/);
        assert.match(cross, /textbox "Inner field" @e\d+ = "across"/);
      }),
    );

    it(
      'includes open shadow roots and acts inside them',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/shadow') });
        const text = (await snapshot(s)).snapshot;
        await s.call('browser_type', { ref: refAfter(text, 'textbox "Shadow field"'), text: 'deep' });
        await s.call('browser_click', { ref: refAfter(text, 'button "Shadow button"') });
        assert.match(await fullText(s), /shadow clicked deep trusted=true/);
      }),
    );
  });
}
