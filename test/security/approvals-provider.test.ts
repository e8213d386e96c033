/**
 * Approvals on a cloud provider's browser (docs/safety.md "Approvals"): sessions run on the bundled
 * remote-cdp provider, which hands back the CDP URL of a real headless Chromium the test launched.
 * Private addresses are allowed only because the test sites are on loopback.
 */
import { startTestGateway } from '../gateway/fixtures/gateway.js';
import { launchChromium } from '../helpers/chromium.js';
import { approvalCases, approvalConfig } from './approvals-cases.js';

approvalCases('approvals on a provider session', 'remote', async (sites, uploadRoot) => {
  const chromium = await launchChromium({ extraArgs: [sites.resolverRule] });
  const config = approvalConfig(sites, uploadRoot);
  const gw = await startTestGateway({
    config: {
      browser: {
        ...config.browser,
        cloud_provider: 'remote-cdp',
        remote_cdp: { url: chromium.httpEndpoint },
        allow_private_urls: true,
        command_timeout: 20,
      },
      safety: config.safety,
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
