/**
 * Site grants on a cloud provider's browser (docs/safety.md): a real gateway whose sessions run on the
 * bundled remote-cdp provider, which hands back the CDP URL of a real headless Chromium the test
 * launched, under `safety.mode.remote: ask`. Private addresses are allowed only because every test site
 * is on loopback; the site layer alone must keep the other site's server at 0 requests.
 */
import { startTestGateway } from '../gateway/fixtures/gateway.js';
import { launchChromium } from '../helpers/chromium.js';
import { SAFETY_CONFIG, siteGrantCases } from './site-grants-cases.js';

siteGrantCases('site grants on a provider session', 'remote', async (servers) => {
  const chromium = await launchChromium({ extraArgs: [servers.resolverRule] });
  const gw = await startTestGateway({
    config: {
      browser: {
        cloud_provider: 'remote-cdp',
        remote_cdp: { url: chromium.httpEndpoint },
        allow_private_urls: true,
        command_timeout: 20,
      },
      safety: SAFETY_CONFIG,
    },
  });
  return {
    gw,
    async dispose() {
      await gw.close();
      chromium.kill();
    },
  };
});
