/**
 * The network guard on a real Chromium: a navigation the site grants refuse is refused at once, without
 * waiting for the host's verdict (a DNS lookup that can take seconds on a closed network), so the
 * refusal reaches the agent with the action that caused it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CdpConnection } from '../../src/gateway/backends/cdp/cdp-connection.js';
import { launchChromium, type ChromiumProcess } from '../../src/gateway/backends/cdp/chromium-process.js';
import { NetworkGuard, type HostVerdict, type Refusal } from '../../src/engine/network-guard.js';
import { CdpSession } from '../../src/engine/transport.js';

describe('network guard', () => {
  let chromium: ChromiumProcess;
  let connection: CdpConnection;

  before(async () => {
    chromium = await launchChromium({ executablePath: undefined, headed: false, extraArgs: [] });
    connection = CdpConnection.overPipe(chromium.toBrowser, chromium.fromBrowser);
  });
  after(async () => {
    connection.close();
    await chromium.kill();
  });

  it(
    'refuses a document the frame judge refuses while the host lookup is still pending',
    { timeout: 30_000 },
    async () => {
      const root = new CdpSession(connection, undefined);
      const lookups: string[] = [];
      const neverAnswered = new Promise<HostVerdict>(() => undefined);
      const guard = await NetworkGuard.enable(
        root,
        {
          judge(host) {
            lookups.push(host);
            return neverAnswered;
          },
        },
        {
          judgeFrame: (url) =>
            url.includes('other.test')
              ? { allowed: false, code: 'site_not_granted', reason: 'other.test is not granted' }
              : { allowed: true },
        },
      );
      const refused = new Promise<Refusal>((resolve) => guard.onRefusal(resolve));
      const { targetId } = await root.send<{ targetId: string }>('Target.createTarget', {
        url: 'http://other.test/page',
      });
      const refusal = await refused;
      assert.equal(refusal.code, 'site_not_granted');
      assert.equal(refusal.resourceType, 'Document');
      assert.equal(refusal.frameId, targetId);
      // The host was asked too: the site refusal did not skip the host check, it only did not wait for it.
      assert.deepEqual(lookups, ['other.test']);
    },
  );
});
