/**
 * `browser.headed: true` shows a real window where a display exists: the local backend then launches
 * Chromium without --headless. Checked under Xvfb, which CI installs (scripts/setup.sh).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { createLocalChromiumBackend } from '../../src/gateway/backends/cdp/index.js';
import { DEFAULT_BROWSER_SETTINGS } from '../../src/gateway/config/browser-settings.js';
import { silentLogger } from '../../src/log/logger.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { waitFor } from '../helpers/wait-for.js';
import { chromiumPidsWith } from './chromium-processes.js';

const hasXvfb = spawnSync('sh', ['-c', 'command -v Xvfb']).status === 0;

describe(
  'headed local Chromium',
  { skip: hasXvfb ? false : 'Xvfb is not installed (scripts/setup.sh installs it for tests)' },
  () => {
    let site: TestSite;
    let xvfb: ChildProcess;
    const display = `:${90 + Math.floor(Math.random() * 400)}`;

    before(async () => {
      site = await startTestSite();
      xvfb = spawn('Xvfb', [display, '-screen', '0', '1280x1024x24', '-nolisten', 'tcp'], {
        stdio: 'ignore',
      });
      const socket = `/tmp/.X11-unix/X${display.slice(1)}`;
      await waitFor(() => fs.existsSync(socket), {
        what: 'Xvfb to open its socket',
        within: 5_000,
        every: 50,
      });
    });
    after(async () => {
      // SIGTERM, not SIGKILL: Xvfb then removes its lock file and socket from /tmp itself.
      if (xvfb && xvfb.exitCode === null) {
        const exited = new Promise((resolve) => xvfb.once('exit', resolve));
        xvfb.kill('SIGTERM');
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 3_000))]);
        if (xvfb.exitCode === null) xvfb.kill('SIGKILL');
      }
      const number = display.slice(1);
      for (const left of [`/tmp/.X${number}-lock`, `/tmp/.X11-unix/X${number}`])
        fs.rmSync(left, { force: true });
      await site?.close();
    });

    it('launches Chromium without --headless and browses in a real window', async () => {
      const marker = `--tabgate-test-marker=${randomUUID()}`;
      const backend = createLocalChromiumBackend(
        { ...DEFAULT_BROWSER_SETTINGS, headed: true, chromiumArgs: [marker] },
        silentLogger,
        { environment: { PATH: process.env.PATH, DISPLAY: display } },
      );
      try {
        const nav = await backend.call({
          sessionId: 'headed',
          tool: 'browser_navigate',
          args: { url: site.url('/page2') },
          toolCallId: null,
        });
        assert.equal((nav as { title: string }).title, 'Page two');
        const main = chromiumPidsWith(marker)
          .map((pid) => fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'))
          .find((args) => !args.some((arg) => arg.startsWith('--type=')));
        assert.ok(main, 'the browser process runs');
        assert.equal(main.includes('--headless'), false);
        const shot = await backend.call({
          sessionId: 'headed',
          tool: 'browser_screenshot',
          args: {},
          toolCallId: null,
        });
        assert.ok(shot.width > 0 && shot.height > 0);
      } finally {
        await backend.close();
      }
      assert.deepEqual(chromiumPidsWith(marker), []);
    });
  },
);
