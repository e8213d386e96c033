/**
 * The local Chromium runs without the browser UI a driven browser never shows: every session's window
 * would otherwise preload the address bar's WebUI popup in a renderer process of its own (about 1.9 s of
 * CPU and 37 MB per session opened: `npm run bench:sessions`). A user's own `--disable-features` in
 * browser.chromium_args still applies beside ours: Chromium keeps only the last of a repeated switch.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { CdpConnection } from '../../src/gateway/backends/cdp/cdp-connection.js';
import {
  launchChromium,
  withDisabledFeatures,
  type ChromiumProcess,
} from '../../src/gateway/backends/cdp/chromium-process.js';
import { CHROMIUM } from '../helpers/chromium.js';

interface TargetInfo {
  type: string;
  url: string;
}

describe("the local Chromium's features", () => {
  let chromium: ChromiumProcess;
  let cdp: CdpConnection;

  before(async () => {
    chromium = await launchChromium({
      executablePath: CHROMIUM,
      headed: false,
      extraArgs: ['--disable-features=Translate'],
    });
    cdp = CdpConnection.overPipe(chromium.toBrowser, chromium.fromBrowser);
  });
  after(async () => {
    cdp?.close();
    await chromium?.kill();
  });

  it('opens sessions with no browser-UI page beside them', async () => {
    // As the engine opens a session: a browser context of its own, and a page in it.
    for (let i = 0; i < 2; i++) {
      const { browserContextId } = (await cdp.send('Target.createBrowserContext', {})) as {
        browserContextId: string;
      };
      await cdp.send('Target.createTarget', { url: 'about:blank', browserContextId });
    }
    // An empty filter entry lists targets of every type, the browser's own UI included.
    const { targetInfos } = (await cdp.send('Target.getTargets', { filter: [{}] })) as {
      targetInfos: TargetInfo[];
    };
    const pages = targetInfos.filter((target) => target.type === 'page');
    assert.equal(pages.length, 3, 'the first window and one page per session');
    assert.deepEqual(
      targetInfos.filter((target) => target.type === 'browser_ui' || target.url.startsWith('chrome://')),
      [],
    );
  });

  it("keeps the user's --disable-features beside its own, in the one switch Chromium reads", () => {
    const argv = fs.readFileSync(`/proc/${chromium.pid}/cmdline`, 'utf8').split('\0');
    const switches = argv.filter((arg) => arg.startsWith('--disable-features='));
    assert.equal(switches.length, 1);
    const names = (switches[0] as string).slice('--disable-features='.length).split(',');
    assert.ok(names.includes('Translate'));
    assert.ok(names.includes('WebUIOmniboxPopup'));
  });

  it('leaves a feature the user enables out of its own list, which would otherwise switch it off', () => {
    assert.deepEqual(withDisabledFeatures(['--enable-features=WebUIOmniboxPopup:mode/full,Other', '--a']), [
      '--enable-features=WebUIOmniboxPopup:mode/full,Other',
      '--a',
      '--disable-features=WebUIOmniboxFullPopup,WebUIOmniboxAimPopup',
    ]);
  });

  it('merges every --disable-features it is given, each name once, and leaves other switches in order', () => {
    assert.deepEqual(
      withDisabledFeatures(['--a', '--disable-features=X,WebUIOmniboxPopup', '--b', '--disable-features=Y,']),
      ['--a', '--b', '--disable-features=WebUIOmniboxPopup,WebUIOmniboxFullPopup,WebUIOmniboxAimPopup,X,Y'],
    );
  });
});
