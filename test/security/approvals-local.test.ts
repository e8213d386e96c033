/**
 * Approvals on the local Chromium (docs/safety.md "Approvals"): a real gateway on its default local
 * browser with every action class on, and local sites that record every request and page event.
 */
import { startTestGateway } from '../gateway/fixtures/gateway.js';
import { approvalCases, approvalConfig } from './approvals-cases.js';

approvalCases('approvals on the local browser', 'local', async (sites, uploadRoot) => {
  const config = approvalConfig(sites, uploadRoot);
  const gw = await startTestGateway({
    config: {
      browser: { ...config.browser, chromium_args: [sites.resolverRule], command_timeout: 20 },
      safety: config.safety,
    },
  });
  return { gw, dispose: () => gw.close() };
});
