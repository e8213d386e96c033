/**
 * The conformance harness of a provider session, through the provider backend
 * (remote-cdp-conformance-1, -2 and -3.test.ts run the suite's parts on it): a provider hands back the
 * CDP URL of a real headless Chromium and tabgate's engine drives it, with the remote URL policy on
 * (browser.allow_private_urls stays false). The provider is remote-cdp, whose browser is shared, so each
 * session gets its own context; the REST providers' path through the same backend is covered by
 * backend.test.ts. The test site's names map to 127.0.0.1 only inside that Chromium, as a cloud
 * browser's public names would. browser.allow_private_urls is on only because one suite case navigates
 * to http://127.0.0.1:9/ to get navigation_failed; the remote policy itself is tested in backend.test.ts.
 */
import { after } from 'node:test';
import { createCdpUrlBackend } from '../../src/gateway/backends/cdp/index.js';
import { ProviderBackend } from '../../src/gateway/backends/providers/index.js';
import { DEFAULT_BROWSER_SETTINGS } from '../../src/gateway/config/browser-settings.js';
import { silentLogger } from '../../src/log/logger.js';
import { RemoteCdpProvider } from '../../src/providers/bundled/index.js';
import { backendSessions } from '../conformance/backend-sessions.js';
import { onTestSite, type ConformanceHarness } from '../conformance/harness.js';
import { startTestSite } from '../testserver/server.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';

let chromium: LocalChromium | undefined;
after(() => chromium?.kill());

export async function remoteCdpHarness(): Promise<ConformanceHarness> {
  const site = await startTestSite({ hosts: ['site-a.tabgate.test', 'site-b.tabgate.test'] });
  chromium = await launchChromium({ extraArgs: ['--host-resolver-rules=MAP *.tabgate.test 127.0.0.1'] });
  const settings = { ...DEFAULT_BROWSER_SETTINGS, snapshotMaxChars: 4000, allowPrivateUrls: true };
  const provider = new RemoteCdpProvider({
    env: { REMOTE_CDP_URL: chromium.httpEndpoint },
    log: silentLogger,
    config: () => ({}),
  });
  const backend = new ProviderBackend({
    provider,
    settings,
    log: silentLogger,
    openCdpUrl: (target) => createCdpUrlBackend(target, settings, silentLogger),
    // These names are public on the browser's side; our DNS does not know them.
    resolve: async () => ['93.184.215.14'],
  });
  return {
    ...onTestSite(site, settings.snapshotMaxChars),
    limits: {
      refusedTools: {
        tools: ['browser_upload', 'browser_downloads'],
        code: 'unsupported_on_backend',
        reason:
          "the provider's browser runs on the provider's machine: CDP sets upload files by their path there, and downloads land on its disk",
      },
    },
    newSession: backendSessions(backend, 'provider-conformance'),
    async close() {
      await backend.close();
      await site.close();
    },
  };
}
