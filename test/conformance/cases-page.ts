import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ConsoleResult, ImagesResult, ScreenshotResult } from '../../src/protocol/index.js';
import { errorCode } from './harness.js';
import { rejectsWith } from './helpers.js';
import { assertedRefusal, withSession } from './session-fixture.js';
import type { HarnessRef } from './harness.js';

export function pageCases(get: HarnessRef): void {
  describe('page reading, dialogs and crashes', () => {
    it(
      'console returns messages and page errors, and clear empties it',
      withSession(get, async (s, t) => {
        await s.call('browser_navigate', { url: get().url('/console') });
        await s.call('browser_snapshot');
        if (await assertedRefusal(get, t, s, 'browser_console', { clear: true })) return;
        const read = (await s.call('browser_console', { clear: true })) as ConsoleResult;
        assert.deepEqual(
          read.messages.map((m) => [m.type, m.text]),
          [
            ['log', 'hello 42'],
            ['warning', 'careful'],
          ],
        );
        assert.match(read.errors[0]?.message ?? '', /boom from page/);
        const after = (await s.call('browser_console')) as ConsoleResult;
        assert.deepEqual([after.messages, after.errors, after.cleared], [[], [], false]);
      }),
    );

    it(
      'get_images lists src, alt and natural size',
      withSession(get, async (s, t) => {
        await s.call('browser_navigate', { url: get().url('/images') });
        if (await assertedRefusal(get, t, s, 'browser_get_images')) return;
        const { images } = (await s.call('browser_get_images')) as ImagesResult;
        assert.deepEqual(images, [
          { src: get().url('/img/a.svg'), alt: 'A red box', width: 40, height: 30 },
          { src: get().url('/img/b.svg'), alt: '', width: 10, height: 20 },
        ]);
      }),
    );

    it(
      'screenshot returns a PNG of the viewport, and a taller one for the full page',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/long') });
        const view = (await s.call('browser_screenshot')) as ScreenshotResult;
        assert.equal(Buffer.from(view.data, 'base64').subarray(1, 4).toString(), 'PNG');
        assert.ok(view.width > 0 && view.height > 0);
        assert.equal(view.full_page, false);
        const full = (await s.call('browser_screenshot', { full_page: true })) as ScreenshotResult;
        assert.ok(full.height > view.height * 2, `${full.height} vs ${view.height}`);
      }),
    );

    it('a crashed browser fails each affected session once with browser_crashed, then recovers', async (t) => {
      const crash = get().crashBrowser;
      if (!crash) {
        t.skip('this harness cannot crash its browser');
        return;
      }
      const s = await get().newSession();
      try {
        await s.call('browser_navigate', { url: get().url('/page2') });
        await crash();
        await rejectsWith(s.call('browser_snapshot'), 'browser_crashed');
        const again = await s
          .call('browser_navigate', { url: get().url('/page2') })
          .catch((error: unknown) => errorCode(error));
        assert.equal((again as { title?: string }).title, 'Page two');
      } finally {
        await s.close();
      }
    });
  });
}
