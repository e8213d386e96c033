/**
 * A launched Chromium leaves no folder behind: neither its profile nor the folder Chromium makes under
 * TMPDIR for its singleton socket, which it keeps when ended by a signal (one per launch in /tmp,
 * before this was handled). A gateway killed with SIGKILL cannot remove its browser's profile, cookies
 * and all; the next launch does, and never a live gateway's.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { launchChromium } from '../../src/gateway/backends/cdp/chromium-process.js';
import { singletonFolderOf } from '../../src/gateway/backends/cdp/chromium-profile.js';
import { CHROMIUM, launchChromium as launchTestChromium } from '../helpers/chromium.js';
import { tempDir } from '../helpers/temp-dir.js';
import { waitFor } from '../helpers/wait-for.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { chromiumPidsWith, startExitChild } from './chromium-processes.js';

const launch = () => launchChromium({ executablePath: CHROMIUM, headed: false, extraArgs: [] });

/** The `--user-data-dir` a running Chromium was started with, from its command line (helpers: none). */
function profileOf(pid: number): string | undefined {
  const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  return args.find((arg) => arg.startsWith('--user-data-dir='))?.slice('--user-data-dir='.length);
}

describe("a Chromium's folders", () => {
  let site: TestSite;
  before(async () => {
    site = await startTestSite();
  });
  after(async () => {
    await site.close();
  });

  it('are all removed when the gateway kills its local Chromium', async () => {
    const chromium = await launch();
    const singleton = singletonFolderOf(chromium.userDataDir);
    assert.ok(singleton, 'Chromium links its profile to a singleton folder of its own');
    assert.ok(fs.existsSync(singleton));
    await chromium.kill();
    assert.equal(fs.existsSync(path.dirname(chromium.userDataDir)), false, 'the profile folder is gone');
    assert.equal(fs.existsSync(singleton), false, 'the singleton folder is gone');
  });

  it("are all removed when a test's Chromium is killed", async () => {
    const chromium = await launchTestChromium();
    const userDataDir = profileOf(chromium.pid);
    assert.ok(userDataDir);
    const singleton = singletonFolderOf(userDataDir);
    assert.ok(singleton);
    chromium.kill();
    assert.equal(fs.existsSync(userDataDir), false);
    assert.equal(fs.existsSync(singleton), false);
  });

  it("of a gateway killed with SIGKILL are removed at the next launch; a live gateway's stay", async () => {
    const live = await launch();
    const marker = `--tabgate-test-marker=${randomUUID()}`;
    const { child, ready } = startExitChild(marker, site.url('/page2'), 'signal');
    try {
      await ready;
      const profile = chromiumPidsWith(marker)
        .map(profileOf)
        .find((dir) => dir !== undefined);
      assert.ok(profile, 'the child runs a Chromium');
      const abandoned = path.dirname(profile);
      child.kill('SIGKILL');
      await waitFor(() => chromiumPidsWith(marker).length === 0, {
        what: 'Chromium to quit after its gateway was killed',
        within: 15_000,
        every: 100,
      });
      assert.ok(fs.existsSync(path.join(abandoned, 'profile')), 'the killed gateway left its profile');
      const dead = fs.readFileSync(path.join(abandoned, 'gateway.pid'), 'utf8').split(' ')[1];
      assert.equal(dead, String(child.pid));

      // A gateway on another host sharing this TMPDIR (a container): its pid means nothing here.
      const elsewhere = tempDir('chromium');
      fs.writeFileSync(path.join(elsewhere, 'gateway.pid'), `not-${os.hostname()} ${dead}`);

      const next = await launch();
      await next.kill();
      assert.ok(next.removedAbandoned >= 1, 'the launch counts what it removed (the gateway logs it)');
      assert.equal(fs.existsSync(abandoned), false, "the dead gateway's browser folder is removed");
      assert.ok(fs.existsSync(live.userDataDir), "a live gateway's profile is kept");
      assert.ok(fs.existsSync(elsewhere), "another host's folder is kept");
    } finally {
      child.kill('SIGKILL');
      await live.kill();
    }
  });
});
