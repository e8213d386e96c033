/** Screenshot options: one element, JPEG, annotated refs (read back from the decoded image), masking. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PNG } from 'pngjs';
import type { ScreenshotResult } from '../../src/protocol/index.js';
import { refOf, rejectsWith } from './helpers.js';
import { withSession } from './session-fixture.js';
import type { HarnessRef } from './harness.js';

function pixel(shot: ScreenshotResult, x: number, y: number): [number, number, number] {
  const png = PNG.sync.read(Buffer.from(shot.data, 'base64'));
  const at = (png.width * Math.round(y) + Math.round(x)) * 4;
  return [png.data[at] ?? -1, png.data[at + 1] ?? -1, png.data[at + 2] ?? -1];
}

const isMagenta = ([r, g, b]: [number, number, number]) => r > 200 && g < 60 && b > 200;
const isBlack = ([r, g, b]: [number, number, number]) => r < 30 && g < 30 && b < 30;

export function screenshotCases(get: HarnessRef): void {
  describe('screenshot options', () => {
    it(
      'annotate draws each ref as a label at its element, where the result says it is',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/annotate') });
        const first = await refOf(s, 'button "First"');
        const second = await refOf(s, 'button "Second"');
        const plain = (await s.call('browser_screenshot')) as ScreenshotResult;
        const shot = (await s.call('browser_screenshot', { annotate: true })) as ScreenshotResult;
        assert.equal(shot.mime_type, 'image/png');
        for (const [ref, left, top] of [
          [first, 40, 40],
          [second, 300, 200],
        ] as const) {
          const label = shot.labels?.find((l) => l.ref === ref);
          assert.deepEqual(label, { ref, x: left, y: top, width: 160, height: 60 });
          assert.ok(isMagenta(pixel(shot, left + 1, top + 1)), `no label at ${ref}`);
          assert.ok(!isMagenta(pixel(plain, left + 1, top + 1)), 'a plain screenshot has no label');
        }
        assert.ok(!isMagenta(pixel(shot, 20, 150)), 'nothing drawn away from the elements');
      }),
    );

    it(
      'paints over password fields in every screenshot',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/annotate') });
        for (const args of [{}, { annotate: true }, { full_page: true }]) {
          const shot = (await s.call('browser_screenshot', args)) as ScreenshotResult;
          assert.equal(shot.masked, 1);
          // The password input's middle (label at 40,320; the field follows its text).
          const text = pixel(shot, 200, 337);
          assert.ok(isBlack(text), `password visible in ${JSON.stringify(args)}: ${text.join(',')}`);
        }
      }),
    );

    it(
      'ref captures an element inside a same-origin and a cross-origin iframe',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/frame-shot') });
        const outline = (await s.call('browser_snapshot')) as { snapshot: string };
        const refs = [...outline.snapshot.matchAll(/button "Green block" (@e\d+)/g)].map((m) => m[1] ?? '');
        assert.equal(refs.length, 2, outline.snapshot);
        for (const ref of refs) {
          const shot = (await s.call('browser_screenshot', { ref })) as ScreenshotResult;
          assert.deepEqual([shot.width, shot.height], [120, 40], ref);
          for (const [x, y] of [
            [1, 1],
            [118, 1],
            [1, 38],
            [118, 38],
            [60, 20],
          ] as const) {
            const [r, g, b] = pixel(shot, x, y);
            assert.ok(
              r < 40 && g > 140 && b < 40,
              `${ref} at ${x},${y} is ${r},${g},${b}, not the green block`,
            );
          }
        }
      }),
    );

    it(
      'ref captures one element, and format jpeg takes a quality',
      withSession(get, async (s) => {
        await s.call('browser_navigate', { url: get().url('/tasks/annotate') });
        const ref = await refOf(s, 'button "Second"');
        const element = (await s.call('browser_screenshot', { ref })) as ScreenshotResult;
        assert.deepEqual([element.width, element.height], [160, 60]);
        const jpeg = (await s.call('browser_screenshot', {
          format: 'jpeg',
          quality: 50,
        })) as ScreenshotResult;
        assert.equal(jpeg.mime_type, 'image/jpeg');
        assert.ok(jpeg.data.startsWith('/9j/'));
        assert.ok(jpeg.width > 0 && jpeg.height > 0);
        await rejectsWith(s.call('browser_screenshot', { quality: 50 }), 'invalid_arguments');
        await rejectsWith(s.call('browser_screenshot', { format: 'jpeg', quality: 0 }), 'invalid_arguments');
        await rejectsWith(s.call('browser_screenshot', { format: 'gif' }), 'invalid_arguments');
        await rejectsWith(s.call('browser_screenshot', { ref: 'nope!' }), 'invalid_arguments');
      }),
    );
  });
}
