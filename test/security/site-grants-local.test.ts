/**
 * Site grants on the local Chromium (docs/safety.md): a real gateway on its default local browser,
 * `safety.mode.local: ask`, and pages that try every way to move a frame to a site the session was
 * not granted. The other site's server must see 0 requests.
 */
import { startTestGateway } from '../gateway/fixtures/gateway.js';
import { SAFETY_CONFIG, siteGrantCases } from './site-grants-cases.js';

siteGrantCases('site grants on the local browser', 'local', async (servers) => {
  const gw = await startTestGateway({
    config: {
      browser: { chromium_args: [servers.resolverRule], command_timeout: 20 },
      safety: SAFETY_CONFIG,
    },
  });
  return { gw, dispose: () => gw.close() };
});
