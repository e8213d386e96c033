import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NavigateResult, SnapshotResult } from '../../src/protocol/index.js';
import { fullText, refAfter, snapshot } from './helpers.js';
import { withSession } from './session-fixture.js';
import type { HarnessRef } from './suite.js';

export function snapshotCases(get: HarnessRef): void {
  describe('snapshot', () => {
    it(
      'lists interactive elements with role, accessible name, state and a ref, plus headings',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        const text = (await snapshot(s)).snapshot;
        assert.match(text, /^# Test form$/m);
        for (const label of [
          'textbox "Your name"',
          'textbox "Email"',
          'combobox "Country"',
          'checkbox "I agree"',
          'button "Send"',
        ]) {
          refAfter(text, label);
        }
        assert.match(text, /link "Go to page 2" @e\d+ → \/page2/);
        assert.match(text, /combobox "Country" @e\d+ = "France"/);
      }),
    );

    it(
      'never shows a password value, only that the field is filled',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        const ref = refAfter((await snapshot(s)).snapshot, 'textbox "Password"');
        const typed = await s.call('browser_type', { ref, text: 'hunter2-secret' });
        assert.doesNotMatch(JSON.stringify(typed), /hunter2/);
        for (const full of [false, true]) {
          const text = (await snapshot(s, { full })).snapshot;
          assert.doesNotMatch(text, /hunter2/);
          assert.match(text, /textbox "Password" @e\d+ \[password, filled/);
        }
      }),
    );

    it(
      'never shows card numbers, card codes or one-time codes, while ordinary fields stay readable',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/payment') });
        const page = (await snapshot(s)).snapshot;
        for (const [label, text] of [
          ['Card number', '4111111111111111'],
          ['Security code', '737'],
          ['Code from the app', '918273'],
          ['Name on card', 'Ada Lovelace'],
        ] as const) {
          await s.call('browser_type', { ref: refAfter(page, `textbox "${label}"`), text });
        }
        for (const full of [false, true]) {
          const text = (await snapshot(s, { full })).snapshot;
          for (const secret of ['4111111111111111', '737', '918273'])
            assert.doesNotMatch(text, new RegExp(secret));
          assert.match(text, /textbox "Card number" @e\d+ \[secret, filled/);
          assert.match(text, /textbox "Name on card" @e\d+ (\[focused\] )?= "Ada Lovelace"/);
        }
      }),
    );

    it(
      'cuts at line boundaries within the budget and pages deterministically with offset',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/table') });
        const budget = get().snapshotMaxChars;
        const first = await snapshot(s);
        const again = await snapshot(s);
        assert.deepEqual(again, first);
        assert.equal(first.truncated, true);
        assert.ok(first.snapshot.length <= budget);
        assert.match(
          first.snapshot,
          /more lines \(\d+ chars\) not shown; call browser_snapshot with offset=\d+/,
        );
        const parts: string[] = [];
        let page: SnapshotResult = first;
        for (;;) {
          parts.push(
            page.next_offset === null
              ? page.snapshot
              : page.snapshot.slice(0, page.snapshot.lastIndexOf('\n…')),
          );
          if (page.next_offset === null) break;
          page = await snapshot(s, { offset: page.next_offset });
          assert.ok(page.snapshot.length <= budget);
        }
        const whole = parts.join('\n');
        assert.equal(whole.length, first.total_chars);
        assert.match(whole, /Item 1000 \| \$1368\.63 \| button "Buy" @e\d+/);
        assert.equal((whole.match(/@e\d+/g) ?? []).length, first.ref_count);
      }),
    );

    it(
      'keeps every interactive element of a large page reachable by ref',
      withSession(get, async (s) => {
        const navigated = (await s.call('browser_navigate', { url: get().url('/table') })) as NavigateResult;
        assert.equal(navigated.snapshot.ref_count, 1000);
      }),
    );

    it(
      'compact clips long text; full adds the rest',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/article') });
        const compact = (await snapshot(s)).snapshot;
        const full = await fullText(s);
        const ending = 'measured and clipped for the reader.';
        assert.doesNotMatch(compact, new RegExp(ending));
        assert.match(full, new RegExp(ending));
        assert.ok(compact.length < full.length / 2);
        assert.match(compact, /^## Part two$/m);
      }),
    );

    it(
      'shows the value of a text field',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        const ref = refAfter((await snapshot(s)).snapshot, 'textbox "Your name"');
        await s.call('browser_type', { ref, text: 'Alice' });
        assert.match((await snapshot(s)).snapshot, /textbox "Your name" @e\d+ \[focused\] = "Alice"/);
      }),
    );
  });
}
