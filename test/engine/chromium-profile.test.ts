/**
 * A launched Chromium leaves no folder behind once killed: neither its profile nor the folder Chromium
 * makes under TMPDIR for its singleton socket, which it keeps when ended by a signal (one per launch
 * in /tmp, before this was handled).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { launchChromium } from '../../src/gateway/backends/cdp/chromium-process.js';
import { singletonFolderOf } from '../../src/gateway/backends/cdp/chromium-profile.js';
import { CHROMIUM, launchChromium as launchTestChromium } from '../helpers/chromium.js';

describe("a Chromium's folders", () => {
  it('are all removed when the gateway kills its local Chromium', async () => {
    const chromium = await launchChromium({ executablePath: CHROMIUM, headed: false, extraArgs: [] });
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
    const singleton = singletonFolderOf(userDataDir);
    assert.ok(singleton);
    chromium.kill();
    assert.equal(fs.existsSync(userDataDir), false);
    assert.equal(fs.existsSync(singleton), false);
  });
});

/** The `--user-data-dir` a running Chromium was started with, from its command line. */
function profileOf(pid: number): string {
  const args = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  const flag = args.find((arg) => arg.startsWith('--user-data-dir='));
  assert.ok(flag);
  return flag.slice('--user-data-dir='.length);
}
