import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BackResult, NavigateResult, TabsResult } from '../../src/protocol/index.js';
import { refOf, rejectsWith, snapshot } from './helpers.js';
import { expectedCode, withSession } from './session-fixture.js';
import type { HarnessRef } from './harness.js';

export function navigationCases(get: HarnessRef): void {
  describe('navigation', () => {
    it(
      'navigate returns the final url, title, HTTP status and a compact snapshot with refs',
      withSession(get, async (s) => {
        const result = (await s.call('browser_navigate', { url: get().url('/form') })) as NavigateResult;
        assert.equal(result.url, get().url('/form'));
        assert.equal(result.title, 'Test form');
        assert.equal(result.status, 200);
        assert.match(result.snapshot?.snapshot ?? '', /button "Check trust" @e\d+/);
        assert.ok((result.snapshot?.ref_count ?? 0) >= 9);
      }),
    );

    it(
      'navigate reports the status of an error page',
      withSession(get, async (s) => {
        const result = (await s.call('browser_navigate', { url: get().url('/missing') })) as NavigateResult;
        assert.equal(result.status, 404);
        assert.equal(result.title, 'Missing');
      }),
    );

    it(
      'navigate follows redirects and returns where it landed',
      withSession(get, async (s) => {
        const result = (await s.call('browser_navigate', {
          url: get().url('/redirect?to=/page2'),
        })) as NavigateResult;
        assert.equal(result.url, get().url('/page2'));
        assert.equal(result.title, 'Page two');
      }),
    );

    it(
      'navigate refuses file, javascript, data and chrome URLs with invalid_url',
      withSession(get, async (s) => {
        for (const url of [
          'file:///etc/passwd',
          'javascript:alert(1)',
          'data:text/html,hi',
          'chrome://settings',
          'not a url',
        ]) {
          await rejectsWith(s.call('browser_navigate', { url }), 'invalid_url');
        }
      }),
    );

    it(
      'navigate refuses cloud metadata addresses',
      withSession(get, async (s, t) => {
        await rejectsWith(
          s.call('browser_navigate', { url: 'http://169.254.169.254/latest/meta-data/' }),
          expectedCode(get, t, 'metadata_url_blocked'),
        );
      }),
    );

    it(
      'navigate to a server that is not there fails with navigation_failed',
      withSession(get, async (s) => {
        await rejectsWith(s.call('browser_navigate', { url: 'http://127.0.0.1:9/' }), 'navigation_failed');
      }),
    );

    it(
      'after a navigation that failed, the next call finds the tab on its error page',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        for (const next of ['browser_back', 'browser_forward'] as const) {
          await rejectsWith(s.call('browser_navigate', { url: 'http://127.0.0.1:9/' }), 'navigation_failed');
          // Answered at once, while Chromium's error page was still being committed, this was a 500.
          if (next === 'browser_back')
            assert.equal(((await s.call('browser_back')) as BackResult).url, get().url('/form'));
          else await rejectsWith(s.call('browser_forward'), 'no_history');
        }
      }),
    );

    it(
      'about:blank is allowed',
      withSession(get, async (s) => {
        const result = (await s.call('browser_navigate', { url: 'about:blank' })) as NavigateResult;
        assert.equal(result.url, 'about:blank');
      }),
    );

    it(
      'back returns to the previous page even without any user activation',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        await s.call('browser_navigate', { url: get().url('/page2') });
        const back = (await s.call('browser_back')) as BackResult;
        assert.equal(back.url, get().url('/form'));
        assert.equal(back.title, 'Test form');
      }),
    );

    it(
      'back with no previous page, and forward with no next one, fail with no_history and stay put',
      withSession(get, async (s) => {
        await rejectsWith(s.call('browser_back'), 'no_history');
        await s.call('browser_navigate', { url: get().url('/form') });
        await rejectsWith(s.call('browser_forward'), 'no_history');
        const { tabs } = (await s.call('browser_tabs')) as TabsResult;
        assert.equal(tabs.find((tab) => tab.active)?.url, get().url('/form'));
      }),
    );

    it(
      'a ref used after navigation fails with stale_ref',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/form') });
        const ref = await refOf(s, 'button "Check trust"');
        await s.call('browser_navigate', { url: get().url('/form') });
        await rejectsWith(s.call('browser_click', { ref }), 'stale_ref');
        assert.match((await snapshot(s, { full: true })).snapshot, /nothing yet/);
      }),
    );
  });
}
