/**
 * How CLI commands that talk to a running gateway find it and their credential: `--gateway URL`, else
 * the configured host and port; the API key from `API_SERVER_KEY`, else the configuration, else the home
 * folder; the owner's operator key only from the home folder (`operator_key`, mode 0600).
 */
import { resolveApiKey } from '../gateway/auth/api-key.js';
import { operatorKeyFile, readOperatorKey } from '../gateway/operator/index.js';
import { GatewayClient } from './gateway-client.js';
import { loadConfig, type GatewayConfig } from '../gateway/config/index.js';
import { isTabgateError } from '../protocol/index.js';

export function gatewayUrlOf(config: GatewayConfig, explicit: string | undefined): string {
  if (explicit) return explicit;
  const host = config.gateway.host.includes(':') ? `[${config.gateway.host}]` : config.gateway.host;
  const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host;
  return `http://${reachable}:${config.gateway.port}`;
}

/** Where the running gateway is and the key to call it with. */
export function gatewayTarget(explicitUrl: string | undefined): { baseUrl: string; apiKey: string } {
  const config = loadConfig({ env: process.env });
  const key = resolveApiKey(config, { create: false }).key;
  if (!key) {
    throw new Error(
      'no API key found: set API_SERVER_KEY, or run `tabgate serve` once so it creates one in the home folder',
    );
  }
  return { baseUrl: gatewayUrlOf(config, explicitUrl), apiKey: key };
}

export function connectToGateway(explicitUrl: string | undefined): GatewayClient {
  return new GatewayClient(gatewayTarget(explicitUrl));
}

/** Where the running gateway is and the owner's operator key, for owner-only commands. */
export function operatorTarget(explicitUrl: string | undefined): { baseUrl: string; operatorKey: string } {
  const config = loadConfig({ env: process.env });
  const operatorKey = readOperatorKey(config.home);
  if (!operatorKey) {
    throw new Error(
      `no operator key in ${operatorKeyFile(config.home)}: run this as the user who runs \`tabgate serve\` (it creates the key at first start), with the same TABGATE_HOME`,
    );
  }
  return { baseUrl: gatewayUrlOf(config, explicitUrl), operatorKey };
}

/** A client that acts as the owner: the operator key as its bearer. */
export function operatorClient(target: { baseUrl: string; operatorKey: string }): GatewayClient {
  return new GatewayClient({ baseUrl: target.baseUrl, apiKey: target.operatorKey });
}

/** A failure as the person at the terminal reads it: `<message> (<code>)` for the gateway's own. */
export function describeFailure(error: unknown): string {
  return isTabgateError(error) ? `${error.message} (${error.code})` : (error as Error).message;
}
