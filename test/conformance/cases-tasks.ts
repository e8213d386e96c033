/** Everyday interactions: keys and combos, click variants, hover, selects, forms, drag, history, tabs. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TabCloseResult, TabNewResult, TabsResult } from '../../src/protocol/index.js';
import { fullText, refAfter, refOf, rejectsWith, snapshot } from './helpers.js';
import { withSession } from './session-fixture.js';
import type { HarnessRef } from './harness.js';

const logOf = async (s: Parameters<typeof fullText>[0]) => /log:[^\n]*/.exec(await fullText(s))?.[0] ?? '';

export function taskCases(get: HarnessRef): void {
  describe('everyday tasks', () => {
    it(
      'press sends function keys and combinations written as people write them',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/keys') });
        await s.call('browser_click', { ref: await refOf(s, 'textbox "Editor"') });
        assert.deepEqual(await s.call('browser_press', { key: 'F2' }), { pressed: 'F2' });
        await s.call('browser_press', { key: 'Shift+Tab' });
        await s.call('browser_press', { key: 'Meta+Shift+K' });
        await s.call('browser_press', { key: 'ContextMenu' });
        await s.call('browser_press', { key: 'PageDown' });
        await s.call('browser_press', { key: 'Insert' });
        const log = await logOf(s);
        for (const seen of [
          'F2/F2:true',
          'F2-up',
          'shift+Tab/Tab:true',
          'shift+meta+K/KeyK:true',
          'ContextMenu/ContextMenu:true',
          'PageDown/PageDown:true',
          'Insert/Insert:true',
        ])
          assert.ok(log.includes(seen), `${seen} missing from ${log}`);
      }),
    );

    it(
      'Control+A selects all, so the next key replaces the text; the old modifiers array still works',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/keys') });
        const editor = await refOf(s, 'textbox "Editor"');
        await s.call('browser_click', { ref: editor });
        assert.deepEqual(await s.call('browser_press', { key: 'Control+A' }), { pressed: 'Control+A' });
        await s.call('browser_press', { key: 'x' });
        assert.match(await fullText(s), /textbox "Editor" @e\d+ \[focused\] = "x"/);
        await s.call('browser_press', { key: 'a', modifiers: ['Control'] });
        await s.call('browser_press', { key: 'y' });
        assert.match(await fullText(s), /textbox "Editor" @e\d+ \[focused\] = "y"/);
      }),
    );

    it(
      'press refuses what is no key, naming the field and what is valid',
      withSession(get, async (s) => {
        for (const key of ['F99', 'Control+', 'Hyperdrive', 'Control+Banana', '']) {
          const error = await rejectsWith(s.call('browser_press', { key }), 'invalid_arguments');
          assert.match(error.message, /key: expected a KeyboardEvent\.key name/);
        }
      }),
    );

    it(
      'click can use the right or middle button, click twice, and hold modifiers',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/clicks') });
        const ref = await refOf(s, 'button "Target"');
        await s.call('browser_click', { ref, button: 'right' });
        await s.call('browser_click', { ref, button: 'middle' });
        await s.call('browser_click', { ref, double: true });
        await s.call('browser_click', { ref, modifiers: ['Control', 'Shift'] });
        const log = await logOf(s);
        assert.match(log, /down2 contextmenu/);
        assert.match(log, /down1 auxclick1/);
        assert.match(log, /click1 down0 click2 dblclick/);
        assert.match(log, /click1\+ctrl\+shift/);
        await rejectsWith(s.call('browser_click', { ref, button: 'side' }), 'invalid_arguments');
      }),
    );

    it(
      'hover opens a CSS :hover menu',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/hover') });
        assert.doesNotMatch((await snapshot(s)).snapshot, /Settings/);
        assert.deepEqual(await s.call('browser_hover', { ref: await refOf(s, 'button "Account"') }), {
          hovered: await refOf(s, 'button "Account"'),
        });
        assert.match((await snapshot(s)).snapshot, /link "Settings" @e\d+/);
        await rejectsWith(s.call('browser_hover', {}), 'invalid_arguments');
      }),
    );

    it(
      'select_option picks one option by label or value, and several in a multi-select',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/select') });
        const size = await refOf(s, 'combobox "Size"');
        assert.deepEqual(await s.call('browser_select_option', { ref: size, values: ['Large'] }), {
          selected: ['Large'],
        });
        const toppings = await refOf(s, 'listbox "Toppings"');
        assert.deepEqual(
          await s.call('browser_select_option', { ref: toppings, values: ['olives', 'Basil'] }),
          { selected: ['Olives', 'Basil'] },
        );
        const log = await logOf(s);
        assert.match(log, /size=l/);
        assert.match(log, /toppings=olives,basil/);
        const error = await rejectsWith(
          s.call('browser_select_option', { ref: size, values: ['Huge'] }),
          'element_not_interactable',
        );
        assert.match(error.message, /Huge .*Small, Medium, Large/);
        await rejectsWith(
          s.call('browser_select_option', { ref: size, values: ['s', 'm'] }),
          'element_not_interactable',
        );
        await rejectsWith(s.call('browser_select_option', { ref: size, values: [] }), 'invalid_arguments');
      }),
    );

    it(
      'fill_form fills text, select, checkboxes and a radio in one call',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/form') });
        const text = (await snapshot(s)).snapshot;
        const ref = (label: string) => new RegExp(`${label} (@e\\d+)`).exec(text)?.[1] ?? '';
        const fields = [
          { ref: ref('textbox "Full name"'), value: 'Ada Lovelace' },
          { ref: ref('combobox "Plan"'), value: 'Team' },
          { ref: ref('checkbox "Newsletter"'), value: true },
          { ref: ref('checkbox "Terms"'), value: false },
          { ref: ref('radio "Yearly"'), value: 'true' },
        ];
        assert.deepEqual(await s.call('browser_fill_form', { fields }), { filled: fields.map((f) => f.ref) });
        await s.call('browser_click', { ref: await refOf(s, 'button "Review"') });
        assert.match(
          await fullText(s),
          /\{"name":"Ada Lovelace","plan":"Team","news":"on","billing":"yearly"\}/,
        );
        const bad = await rejectsWith(
          s.call('browser_fill_form', { fields: [{ ref: ref('button "Review"'), value: 'x' }] }),
          'element_not_interactable',
        );
        assert.match(bad.message, /fields\.0 \(@e\d+\)/);
        await rejectsWith(s.call('browser_fill_form', { fields: [] }), 'invalid_arguments');
        await rejectsWith(
          s.call('browser_fill_form', { fields: [{ ref: '@e1', value: 3 }] }),
          'invalid_arguments',
        );
      }),
    );

    for (const kind of ['html5', 'pointer'] as const) {
      it(
        `drag moves an item between two lists (${kind === 'html5' ? 'HTML5 drag and drop' : 'pointer events'})`,
        withSession(get, async (s) => {
          await s.call('browser_navigate', { url: get().url(`/tasks/drag-${kind}`) });
          const text = (await snapshot(s)).snapshot;
          const from = refAfter(text, '"Apple"');
          const to = refAfter(text, '"Cherry"');
          const result = (await s.call('browser_drag', { from_ref: from, to_ref: to })) as { kind: string };
          assert.equal(result.kind, kind);
          assert.match(await fullText(s), /right has: Cherry,Apple/);
          await rejectsWith(s.call('browser_drag', { from_ref: to }), 'invalid_arguments');
        }),
      );
    }

    it(
      'forward undoes back, and reload loads the page again',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        await s.call('browser_navigate', { url: get().url('/page2') });
        await s.call('browser_back');
        assert.deepEqual(await s.call('browser_forward'), { url: get().url('/page2'), title: 'Page two' });
        await rejectsWith(s.call('browser_forward'), 'no_history');
        await s.call('browser_navigate', { url: get().url('/tasks/wait') });
        await s.call('browser_click', { ref: await refOf(s, 'button "Start now"') });
        await s.call('browser_wait_for', { text: 'Result ready' });
        assert.deepEqual(await s.call('browser_reload'), { url: get().url('/tasks/wait'), title: 'Wait' });
        assert.doesNotMatch(await fullText(s), /Result ready/);
        await rejectsWith(s.call('browser_reload', { hard: true }), 'invalid_arguments');
      }),
    );

    it(
      'tab_new opens an active tab and tab_close closes it',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        const opened = (await s.call('browser_tab_new', { url: get().url('/page2') })) as TabNewResult;
        assert.equal(opened.title, 'Page two');
        const tabs = ((await s.call('browser_tabs')) as TabsResult).tabs;
        assert.equal(tabs.length, 2);
        assert.equal(tabs.find((tab) => tab.active)?.id, opened.tab_id);
        const closed = (await s.call('browser_tab_close', {})) as TabCloseResult;
        assert.equal(closed.closed, opened.tab_id);
        assert.notEqual(closed.active, null);
        assert.equal((await snapshot(s)).title, 'Test form');
        await rejectsWith(s.call('browser_tab_close', { tab_id: 999 }), 'tab_not_found');
        await rejectsWith(s.call('browser_tab_new', { url: 'ftp://x' }), 'invalid_url');
      }),
    );

    it(
      'a tab_new that fails leaves the tabs as they were, the same tab active',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        const second = (await s.call('browser_tab_new', { url: get().url('/page2') })) as TabNewResult;
        const first = ((await s.call('browser_tabs')) as TabsResult).tabs.find(
          (tab) => tab.id !== second.tab_id,
        );
        await s.call('browser_tab_activate', { tab_id: first?.id });
        const before = ((await s.call('browser_tabs')) as TabsResult).tabs;
        await rejectsWith(s.call('browser_tab_new', { url: 'not a url' }), 'invalid_url');
        await rejectsWith(s.call('browser_tab_new', { url: 'http://127.0.0.1:9/' }), 'navigation_failed');
        const after = ((await s.call('browser_tabs')) as TabsResult).tabs;
        assert.deepEqual(
          after.map(({ id, active }) => ({ id, active })),
          before.map(({ id, active }) => ({ id, active })),
        );
        assert.equal((await snapshot(s)).title, 'Test form');
      }),
    );
  });
}
