/**
 * The one way a loaded configuration becomes provider discovery options, shared by the gateway, `tabgate
 * plugins` and `tabgate doctor`, so all three see the same plugins in the same state.
 */
import type { Logger } from '../../../log/logger.js';
import type { DiscoveryOptions } from '../../../providers/index.js';
import { pluginSection, type GatewayConfig } from '../../config/index.js';

export function providerDiscoveryOptions(
  config: GatewayConfig,
  env: Readonly<Record<string, string | undefined>>,
  log: Logger,
): DiscoveryOptions {
  return {
    env,
    log,
    home: config.home,
    enabled: config.plugins.enabled,
    disabled: config.plugins.disabled,
    config: (name) => pluginSection(config, name),
    createTimeoutMs: config.browser.provider_timeout_s * 1000,
  };
}
