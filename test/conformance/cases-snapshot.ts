import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NavigateResult, SnapshotResult } from '../../src/protocol/index.js';
import { fullText, refAfter, snapshot } from './helpers.js';
import { withSession } from './session-fixture.js';
import type { ConformanceSession } from './harness.js';
import type { HarnessRef } from './harness.js';

/** Every page of the outline, reading on with `next_offset` until the end. */
async function allPages(
  s: ConformanceSession,
  args: Record<string, unknown> = {},
): Promise<SnapshotResult[]> {
  const pages = [await snapshot(s, args)];
  for (let page = pages[0]; page?.next_offset != null;) {
    page = await snapshot(s, { ...args, offset: page.next_offset });
    pages.push(page);
  }
  return pages;
}

/**
 * The page's part of an answer: without the pager's closing note, the page-text boundary around it and,
 * on a first answer, the outline of the later parts.
 */
const bodyOf = (page: SnapshotResult) => {
  const text =
    page.next_offset === null ? page.snapshot : page.snapshot.slice(0, page.snapshot.lastIndexOf('\n…'));
  const inner = text
    .replace(/^<page-text nonce="[\w-]{22}" origin="[^"]*">\n/, '')
    .replace(/\n<\/page-text nonce="[\w-]{22}">$/, '');
  return inner.startsWith('Outline: ') ? inner.slice(inner.indexOf('\n\n') + 2) : inner;
};

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
          // The page's lines only: the boundary's origin carries a port, which may hold these digits.
          const text = bodyOf(await snapshot(s, { full }));
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
        assert.deepEqual({ ...again, snapshot: bodyOf(again) }, { ...first, snapshot: bodyOf(first) });
        assert.equal(first.truncated, true);
        assert.ok(first.snapshot.length <= budget);
        assert.match(
          first.snapshot,
          /more lines \(\d+ chars\) not shown; call browser_snapshot with offset=\d+/,
        );
        const parts: string[] = [];
        let page: SnapshotResult = first;
        for (;;) {
          parts.push(bodyOf(page));
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
        assert.equal(navigated.snapshot?.ref_count, 1000);
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

    it(
      'keeps the ref of a clickable container and walks its content like any other',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/snap/clickable') });
        for (const full of [false, true]) {
          const text = (await snapshot(s, { full })).snapshot;
          assert.match(text, /^clickable @e\d+:$/m);
          assert.match(text, /^ {2}## Chapter one$/m);
          assert.match(text, /^ {2}The last sentence of the chapter stays readable\.$/m);
        }
        await s.call('browser_click', { ref: refAfter((await snapshot(s)).snapshot, 'clickable') });
        assert.match((await snapshot(s)).snapshot, /^card clicked$/m);
      }),
    );

    it(
      'never cuts a heading line: each link in it keeps its ref and whole target, and no control character leaks',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/snap/headings') });
        const pages = await allPages(s, { full: true });
        assert.equal(pages[0]?.ref_count, 30);
        const whole = pages.map(bodyOf).join('\n');
        // eslint-disable-next-line no-control-regex -- what must never reach the agent
        assert.doesNotMatch(whole, /[\u0000-\u0009\u000b-\u001f]/);
        const slug = 'long-slug-'.repeat(6);
        for (let h = 0; h < 10; h++) {
          for (const n of [1, 2, 3]) {
            assert.match(
              whole,
              new RegExp(`link "Story ${h}-${n}, [^"]*" @e\\d+ → /page2\\?story=${h}-${n}-${slug}( |$)`, 'm'),
            );
          }
        }
      }),
    );

    it(
      'cuts a line longer than the budget between controls, so every ref stays whole and clicks its own link',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/snap/long-line') });
        const budget = get().snapshotMaxChars;
        // Whole targets keep the line longer than any backend's budget.
        const pages = await allPages(s, { full: true });
        assert.ok(pages.length > 1);
        let refs = 0;
        const links = new Map<number, string>();
        pages.forEach((page, i) => {
          assert.ok(page.snapshot.length <= budget);
          // The page before a line too long for any page is filled, not left nearly empty.
          if (i < pages.length - 1) assert.ok(bodyOf(page).length > budget / 2, `page ${i} is nearly empty`);
          refs += (bodyOf(page).match(/@e\d+/g) ?? []).length;
          for (const [, label, ref, target] of bodyOf(page).matchAll(
            /link "L(\d+)" (@e\d+) → \/page2\?n=(\d+)(?= |$)/gm,
          )) {
            assert.equal(label, target);
            links.set(Number(label), ref ?? '');
          }
        });
        assert.equal(refs, pages[0]?.ref_count);
        assert.equal(links.size, 600);
        // Compact: the first link shows the pattern; the others say where their targets differ (`L581`).
        const compact = (await allPages(s)).map(bodyOf).join('');
        assert.match(compact, /link "L0" @e\d+ → \/page2\?n=0 link "L1" @e\d+ link "L2"/);
        assert.equal(compact.match(/ → /g)?.length, 1);
        const one = await snapshot(s, { ref: links.get(581), full: true });
        assert.match(bodyOf(one), /^link "L581" @e\d+ → \/page2\?n=581$/);
        await s.call('browser_click', { ref: links.get(581) });
        assert.match((await snapshot(s)).url, /\?n=581$/);
      }),
    );

    it(
      'joins inline text as the browser lays it out and keeps the white space of <pre>',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/snap/inline') });
        const text = await fullText(s);
        assert.match(text, /^Unbelievable$/m);
        assert.match(text, /^Total: \$15\.07$/m);
        assert.match(text, /^const data = require\('fs'\)\.readFileSync\(path\);$/m);
        assert.match(text, /^ {2}return data;$/m);
      }),
    );

    it(
      'leaves hidden content out of accessible names',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/snap/names') });
        const text = (await snapshot(s)).snapshot;
        assert.match(text, /link "Storm hits the coast" @e\d+ → \/page2/);
        assert.match(text, /button "Save" @e\d+/);
        assert.match(text, /textbox "City" @e\d+/);
        assert.doesNotMatch(text, /next story|secretly|hidden hint|»/);
      }),
    );

    it(
      'shows a link within the page as its fragment, and folds no run of text to save a single line',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/snap/anchors') });
        const text = (await snapshot(s)).snapshot;
        assert.match(text, /link "Back to top" @e\d+ → # /);
        assert.match(text, /link "Comments" @e\d+ → #comments$/m);
        assert.match(text, /^One\.\nTwo\.\nThree\.$/m);
        assert.doesNotMatch(text, /more lines? of text/);
      }),
    );

    it(
      'names an open dialog by its kind and message in the result',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/snap/dialog-notice') });
        const opened = async (label: string) => {
          const ref = refAfter((await snapshot(s)).snapshot, `button "${label}"`);
          const result = (await s.call('browser_click', { ref })) as { dialog?: string };
          await s.call('browser_dialog', { action: 'dismiss' });
          return result.dialog;
        };
        assert.equal(await opened('Alert'), 'alert "Saved"');
        assert.equal(await opened('Confirm'), 'confirm "Leave?"');
      }),
    );

    it(
      'keeps a visible control under aria-hidden, marked, and leaves hidden ones and the text around it out',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/snap/aria-hidden') });
        for (const full of [false, true]) {
          const text = (await snapshot(s, { full })).snapshot;
          assert.match(text, /^link "Sign in" @e\d+ \[aria-hidden\] → \/page2$/m);
          assert.match(text, /^link "Cart" @e\d+ \[aria-hidden\] → \/form$/m);
          assert.doesNotMatch(text, /Welcome|Closed menu|Collapsed|Off-screen|Visually hidden|Faded/);
        }
        await s.call('browser_click', { ref: refAfter((await snapshot(s)).snapshot, 'link "Sign in"') });
        assert.equal((await snapshot(s)).title, 'Page two');
      }),
    );

    it(
      'ref shows one clickable container and its whole content, and the ref still clicks it',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/snap/clickable') });
        const card = /(@e\d+):\n\s+## Chapter one/.exec((await snapshot(s)).snapshot)?.[1] ?? '';
        const part = bodyOf(await snapshot(s, { ref: card, full: true }));
        assert.match(part, new RegExp(`^clickable ${card}:\\n {2}## Chapter one\\n`));
        assert.match(part, /The last sentence of the chapter stays readable\.$/);
        assert.doesNotMatch(part, /^# Chapter$|none/m);
        await s.call('browser_click', { ref: card });
        assert.match(bodyOf(await snapshot(s, { find: 'clicked' })), /^card clicked$/m);
      }),
    );

    it(
      'find answers the matching lines under their form, with refs that act',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        const found = await snapshot(s, { find: 'country' });
        assert.match(bodyOf(found), /^form:\n {2}combobox "Country" @e\d+ = "France"/);
        assert.doesNotMatch(found.snapshot, /Your name|Send/);
        await s.call('browser_type', { ref: refAfter(found.snapshot, 'combobox "Country"'), text: 'Spain' });
        assert.match((await snapshot(s, { find: 'country' })).snapshot, /= "Spain"/);
        const none = await snapshot(s, { find: 'no such words here' });
        assert.equal(none.snapshot, '');
        assert.match(none.hint ?? '', /No line contains/);
      }),
    );

    it(
      'shows a link target only where it says something, shortened, and never makes two links look the same',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/snap/links') });
        const compact = (await snapshot(s)).snapshot;
        // `/story/3` says nothing `Story 3 headline` does not: no target. `Plain` → `/page2` does.
        assert.match(compact, /link "Story 3 headline" @e\d+ link "Partner story 3"/);
        assert.match(
          compact,
          /link "Partner story 3" @e\d+ → news\.example\.com\/r\?url=partner\.example\.org\/news\/story-3$/m,
        );
        // `2` says where its target differs from `1`'s, which shows the pattern.
        assert.match(compact, /link "1" @e\d+ → \/list\?page=1 link "2" @e\d+$/m);
        assert.match(compact, /link "docs\.example\.com" @e\d+ link "\/about" @e\d+$/m);
        assert.match(compact, /link "Red shoe" @e\d+ → \/product\?color=red /);
        assert.match(
          compact,
          /link "Plain" @e\d+ → \/page2 link "Tracked" @e\d+ → \/page2\?utm_source=footer$/m,
        );
        assert.match(compact, /link "Ad one" @e\d+ → \/go\?t=a1a1a1a1a1a1a1a1… link "Ad two"/);
        // full: true keeps every target whole; in compact mode, one shown target is one destination.
        const whole = new Map<string, string>();
        for (const [, ref, target] of (await fullText(s)).matchAll(/(@e\d+) → (\S+)/g))
          whole.set(ref ?? '', target ?? '');
        assert.match(
          whole.get(refAfter(compact, 'link "Story 3 headline"')) ?? '',
          /^\/story\/3\?utm_source=home&utm_medium=card&utm_campaign=frontpage-2026&sid=8f3a9c2e71d04b6a$/,
        );
        const destinations = new Map<string, Set<string>>();
        for (const [, ref, target] of compact.matchAll(/(@e\d+) → (\S+)/g)) {
          const set = destinations.get(target ?? '') ?? new Set<string>();
          set.add(whole.get(ref ?? '') ?? '');
          destinations.set(target ?? '', set);
        }
        for (const [target, set] of destinations)
          assert.equal(set.size, 1, `${target} stands for ${[...set].join(', ')}`);
        // Two links named alike keep their targets, since their names alone would not tell them apart.
        assert.match(compact, /link "Item 5" @e\d+ → \/item\/5 link "Item 5" @e\d+ → \/5\/item$/m);
        // 20 partner stories, the first list page, 2 shoes, 2 plain/tracked, 2 ads, 2 items: the 20
        // stories say their own paths, and page 2 says how its target differs from page 1's.
        assert.equal(destinations.size, 29);
      }),
    );
  });
}
