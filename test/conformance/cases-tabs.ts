import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NavigateResult, TabActivateResult, TabsResult } from '../../src/protocol/index.js';
import { refOf, rejectsWith, snapshot } from './helpers.js';
import { withSession } from './session-fixture.js';
import type { HarnessRef } from './harness.js';

export function tabCases(get: HarnessRef): void {
  describe('tabs', () => {
    it(
      'a target=_blank link opens a tab that browser_tabs lists and tab_activate switches to',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/popup') });
        await s.call('browser_click', { ref: await refOf(s, 'link "Open page 2 in a new tab"') });
        const { tabs } = (await s.call('browser_tabs')) as TabsResult;
        assert.equal(tabs.length, 2);
        assert.deepEqual(
          tabs.map((t) => t.active),
          [true, false],
        );
        const popup = tabs[1];
        assert.ok(popup);
        const activated = (await s.call('browser_tab_activate', { tab_id: popup.id })) as TabActivateResult;
        assert.equal(activated.url, get().url('/page2'));
        assert.match((await snapshot(s)).snapshot, /# Page two/);
        const again = (await s.call('browser_tabs')) as TabsResult;
        assert.deepEqual(
          again.tabs.map((t) => t.active),
          [false, true],
        );
      }),
    );

    it(
      'a window.open popup is followed and reported as a notice',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/popup') });
        const clicked = (await s.call('browser_click', { ref: await refOf(s, 'button "Open a popup"') })) as {
          notices?: string[];
        };
        assert.match((clicked.notices ?? []).join(' '), /new tab 2 opened/);
        const { tabs } = (await s.call('browser_tabs')) as TabsResult;
        assert.equal(tabs.length, 2);
        await s.call('browser_tab_activate', { tab_id: 2 });
        assert.match((await snapshot(s, { full: true })).snapshot, /Hello popup/);
      }),
    );

    it(
      'lists the title and address a navigation just reached, not the page before it',
      withSession(get, async (s) => {
        for (const path of ['/page2', '/form', '/page2']) {
          const reached = (await s.call('browser_navigate', { url: get().url(path) })) as NavigateResult;
          const { tabs } = (await s.call('browser_tabs')) as TabsResult;
          assert.deepEqual(
            tabs.map((t) => [t.title, t.url]),
            [[reached.title, reached.url]],
          );
          assert.ok(reached.title && !reached.title.includes('/'), `a real title: ${reached.title}`);
        }
      }),
    );

    it(
      'tab ids are small integers and an unknown one fails with tab_not_found',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/page2') });
        const { tabs } = (await s.call('browser_tabs')) as TabsResult;
        assert.deepEqual(
          tabs.map((t) => [t.id, t.url, t.active]),
          [[1, get().url('/page2'), true]],
        );
        await rejectsWith(s.call('browser_tab_activate', { tab_id: 42 }), 'tab_not_found');
      }),
    );

    it('sessions never share cookies', async (t) => {
      const shared = get().limits?.sharedCookies;
      if (shared) {
        t.skip(shared);
        return;
      }
      const one = await get().newSession();
      const two = await get().newSession();
      try {
        await one.call('browser_navigate', { url: get().url('/set-cookie?v=first') });
        await one.call('browser_navigate', { url: get().url('/cookies') });
        assert.match((await snapshot(one, { full: true })).snapshot, /cookie=tg=first/);
        await two.call('browser_navigate', { url: get().url('/cookies') });
        assert.match((await snapshot(two, { full: true })).snapshot, /^cookie=$/m);
      } finally {
        await one.close();
        await two.close();
      }
    });
  });
}
