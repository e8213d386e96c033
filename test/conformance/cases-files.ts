/** Uploads from browser.upload_roots only, and downloads kept in the session's own folder. */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import type { DownloadsResult, UploadResult, WaitResult } from '../../src/protocol/index.js';
import { downloadBytes } from '../testserver/task-pages.js';
import { refOf, rejectsWith } from './helpers.js';
import { assertedRefusal, withSession } from './session-fixture.js';
import type { HarnessRef } from './harness.js';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export function fileCases(get: HarnessRef): void {
  describe('uploads and downloads', () => {
    it(
      'upload sets a file from an allowed folder, and the page receives its exact bytes',
      withSession(get, async (s, t) => {
        await s.call('browser_navigate', { url: get().url('/tasks/upload') });
        const input = await refOf(s, 'button "Attachment"').catch(() => refOf(s, '"Attachment"'));
        const files = get().files;
        if (!files) {
          assert.ok(await assertedRefusal(get, t, s, 'browser_upload', { ref: input, paths: ['/tmp/x'] }));
          return;
        }
        const bytes = Buffer.from(`quarterly numbers ${Date.now()}\n`.repeat(50));
        const path = join(files.uploadRoot, 'report.txt');
        await writeFile(path, bytes);
        const result = (await s.call('browser_upload', { ref: input, paths: [path] })) as UploadResult;
        assert.deepEqual(result.uploaded, [{ name: 'report.txt', size: bytes.length }]);
        const echoed = (await s.call('browser_wait_for', { text: 'sha256=' })) as WaitResult;
        assert.match(echoed.snapshot, new RegExp(`report\\.txt ${bytes.length} sha256=${sha256(bytes)}`));
      }),
    );

    it(
      'upload refuses paths outside the roots, links and .. out of them, missing files, folders and devices',
      withSession(get, async (s) => {
        const files = get().files;
        if (!files) return;
        await s.call('browser_navigate', { url: get().url('/tasks/upload') });
        const ref = await refOf(s, 'button "Attachment"').catch(() => refOf(s, '"Attachment"'));
        const root = files.uploadRoot;
        const outside = join(dirname(root), 'secret.txt');
        await writeFile(outside, 'not for the page');
        // Beside the upload root, which may sit in /tmp itself: removed whatever happens.
        try {
          await symlink(outside, join(root, 'link-out.txt')).catch(() => undefined);
          await symlink('/dev/null', join(root, 'device')).catch(() => undefined);
          await mkdir(join(root, 'folder'), { recursive: true });
          const call = (path: string) => s.call('browser_upload', { ref, paths: [path] });
          for (const path of [
            outside,
            join(root, 'link-out.txt'),
            join(root, '..', 'secret.txt'),
            '/dev/null',
          ]) {
            const error = await rejectsWith(call(path), 'upload_not_allowed');
            assert.match(error.message, /browser\.upload_roots/);
          }
          assert.match(
            (await rejectsWith(call(join(root, 'missing.txt')), 'invalid_arguments')).message,
            /paths\.0: no such file/,
          );
          assert.match(
            (await rejectsWith(call(join(root, 'folder')), 'invalid_arguments')).message,
            /a directory/,
          );
          await rejectsWith(call('relative.txt'), 'invalid_arguments');
          await rejectsWith(s.call('browser_upload', { ref, paths: [] }), 'invalid_arguments');
          assert.match(
            ((await s.call('browser_snapshot', { full: true })) as { snapshot: string }).snapshot,
            /no file/,
          );
        } finally {
          await rm(outside, { force: true });
        }
      }),
    );

    it(
      'a download is saved in the session folder with its size, type and sha256, and its bytes match',
      withSession(get, async (s, t) => {
        await s.call('browser_navigate', { url: get().url('/tasks/downloads') });
        await s.call('browser_click', { ref: await refOf(s, 'link "Small report"') });
        if (await assertedRefusal(get, t, s, 'browser_downloads')) return;
        const { downloads } = (await s.call('browser_downloads')) as DownloadsResult;
        assert.equal(downloads.length, 1);
        const [report] = downloads;
        const expected = downloadBytes(5000);
        assert.deepEqual(
          { ...report, path: undefined },
          {
            name: 'report.csv',
            size: 5000,
            mime: 'text/csv',
            sha256: sha256(expected),
            path: undefined,
            state: 'complete',
          },
        );
        assert.deepEqual(await readFile(report?.path ?? ''), expected);
      }),
    );

    it(
      'navigate to a file answers with its download and leaves the page where it was',
      withSession(get, async (s, t) => {
        await s.call('browser_navigate', { url: get().url('/tasks/downloads') });
        if (await assertedRefusal(get, t, s, 'browser_downloads')) return;
        const result = (await s.call('browser_navigate', {
          url: get().url('/download?name=direct.csv&size=3000'),
        })) as { url: string; downloads?: DownloadsResult['downloads'] };
        assert.equal(new URL(result.url).pathname, '/tasks/downloads');
        const [file] = result.downloads ?? [];
        assert.deepEqual(
          [file?.name, file?.size, file?.state, file?.sha256],
          ['direct.csv', 3000, 'complete', sha256(downloadBytes(3000))],
        );
        assert.deepEqual(await readFile(file?.path ?? ''), downloadBytes(3000));
      }),
    );

    it(
      'a download bigger than browser.download_max_mb is stopped and nothing of it is kept',
      withSession(get, async (s, t) => {
        await s.call('browser_navigate', { url: get().url('/tasks/downloads') });
        await s.call('browser_click', { ref: await refOf(s, 'link "Huge file"') });
        if (await assertedRefusal(get, t, s, 'browser_downloads')) return;
        const { downloads } = (await s.call('browser_downloads')) as DownloadsResult;
        assert.equal(downloads[0]?.state, 'stopped');
        assert.match(downloads[0]?.reason ?? '', /browser\.download_max_mb/);
        await s.call('browser_click', { ref: await refOf(s, 'link "Small report"') });
        const kept = ((await s.call('browser_downloads')) as DownloadsResult).downloads;
        const folder = dirname(kept.find((d) => d.state === 'complete')?.path ?? '');
        assert.deepEqual(await readdir(folder), ['report.csv']);
      }),
    );
  });
}
