import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ScrollResult } from '../../src/protocol/index.js';
import { fullText, refOf, rejectsWith } from './helpers.js';
import { withSession } from './session-fixture.js';
import type { HarnessRef } from './harness.js';

export function actionCases(get: HarnessRef): void {
  describe('actions', () => {
    it(
      'click is a trusted mouse click',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        const ref = await refOf(s, 'button "Check trust"');
        assert.deepEqual(await s.call('browser_click', { ref }), { clicked: ref });
        assert.match(await fullText(s), /clicked trusted=true/);
      }),
    );

    it(
      'type replaces the field content with trusted input',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        const ref = await refOf(s, 'textbox "Your name"');
        await s.call('browser_type', { ref, text: 'Alice' });
        await s.call('browser_type', { ref, text: 'Bob' });
        const text = await fullText(s);
        assert.match(text, /textbox "Your name" @e\d+ \[focused\] = "Bob"/);
        assert.match(text, /input trusted=true/);
      }),
    );

    it(
      'type with submit presses Enter and submits the form',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        await s.call('browser_type', {
          ref: await refOf(s, 'textbox "Your name"'),
          text: 'Carol',
          submit: true,
        });
        // The answer at once: a submission is waited for until its page has loaded (submit-watch.ts).
        assert.match(await fullText(s), /Hello Carol/);
      }),
    );

    it(
      'type with submit, and a click on a submit button, answer on the page the form leads to when the page submits it a moment later',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/late-submit') });
        await s.call('browser_type', {
          ref: await refOf(s, 'textbox "Your name"'),
          text: 'Dana',
          submit: true,
        });
        // The answer at once: the page's own timer runs before the settle's spell, timed by the page's
        // clock, ends (submit-watch.ts), however long the page's check holds its thread.
        assert.match(await fullText(s), /Hello Dana/);
        await s.call('browser_navigate', { url: get().url('/tasks/late-submit') });
        await s.call('browser_type', { ref: await refOf(s, 'textbox "Your name"'), text: 'Eve' });
        await s.call('browser_click', { ref: await refOf(s, 'button "Send"') });
        assert.match(await fullText(s), /Hello Eve/);
      }),
    );

    it(
      'a click answers on the page a form leads to when the page holds its thread before the submission starts, and at once on the page it stayed on when the page dropped it',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/busy-submit') });
        await s.call('browser_type', { ref: await refOf(s, 'textbox "Your name"'), text: 'Fay' });
        await s.call('browser_click', { ref: await refOf(s, 'button "Send"') });
        // The page's turn comes after its 1.5 s hold, and with it the submission: no fixed wait.
        assert.match(await fullText(s), /Hello Fay/);
        await s.call('browser_navigate', { url: get().url('/tasks/busy-submit') });
        await s.call('browser_click', { ref: await refOf(s, 'button "Send, then stop"') });
        assert.match(await fullText(s), /Stayed/);
      }),
    );

    it(
      'type into a select chooses the option with that label',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        await s.call('browser_type', { ref: await refOf(s, 'combobox "Country"'), text: 'Spain' });
        assert.match(await fullText(s), /combobox "Country" @e\d+ = "Spain"/);
      }),
    );

    it(
      'type into a button fails with element_not_interactable',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        await rejectsWith(
          s.call('browser_type', { ref: await refOf(s, 'button "Send"'), text: 'x' }),
          'element_not_interactable',
        );
      }),
    );

    it(
      'press sends trusted keys, with modifiers',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        await s.call('browser_click', { ref: await refOf(s, 'button "Check trust"') });
        await s.call('browser_press', { key: 'a' });
        await s.call('browser_press', { key: 'b', modifiers: ['Control'] });
        await s.call('browser_press', { key: 'Escape' });
        assert.match(await fullText(s), /a:true Control\+ctrl:true b\+ctrl:true Escape:true/);
      }),
    );

    it(
      'scroll moves the page by a screen or by amount',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/long') });
        const down = (await s.call('browser_scroll', { direction: 'down' })) as ScrollResult;
        assert.ok(down.scroll_y !== null && down.scroll_y > 300, `scrolled to ${down.scroll_y}`);
        const up = (await s.call('browser_scroll', { direction: 'up', amount: 100 })) as ScrollResult;
        assert.equal(up.scroll_y, down.scroll_y - 100);
      }),
    );

    it(
      'click scrolls its element into view first',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/long') });
        await s.call('browser_click', { ref: await refOf(s, 'button "Bottom button"') });
        assert.match(await fullText(s), /button "Bottom clicked"/);
      }),
    );

    it(
      'a click aimed before the page moved is stopped before the page sees it, and aimed again',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/shifting') });
        await s.call('browser_click', { ref: await refOf(s, 'button "Target"') });
        assert.match(await fullText(s), /clicks=1 stray=0/);
      }),
    );

    it(
      'a ref whose element left the DOM fails with stale_ref and acts on nothing',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/mutating') });
        const old = await refOf(s, 'button "Target"');
        await s.call('browser_click', { ref: await refOf(s, 'button "Replace"') });
        await rejectsWith(s.call('browser_click', { ref: old }), 'stale_ref');
        assert.match(await fullText(s), /count=0/);
        const fresh = await refOf(s, 'button "Target"');
        assert.notEqual(fresh, old);
        await s.call('browser_click', { ref: fresh });
        assert.match(await fullText(s), /count=1/);
      }),
    );

    it(
      'a ref that was never issued fails with stale_ref',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        await rejectsWith(s.call('browser_click', { ref: '@e99999' }), 'stale_ref');
      }),
    );

    it(
      'a covered element is not clicked: element_covered names the cover',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/covered') });
        const error = await rejectsWith(
          s.call('browser_click', { ref: await refOf(s, 'button "Hidden action"') }),
          'element_covered',
        );
        assert.match(error.message, /div#overlay/);
        assert.match(await fullText(s), /^no$/m);
      }),
    );

    it(
      'a link wrapped across two lines is clicked on its own text',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/wrapped-link') });
        const ref = await refOf(s, 'link "go to the next page"');
        assert.deepEqual(await s.call('browser_click', { ref }), { clicked: ref });
        assert.match(await fullText(s), /^followed$/m);
      }),
    );
  });
}
