/**
 * What `tabgate doctor` checks: settings that widen who can reach the user's browser or read the
 * gateway's secrets, a missing browser, a local browser without its sandbox, and plugins that failed
 * to load. Each finding says what is wrong and how to fix it. `risk` and `error` findings make the command exit non-zero.
 */
import fs from 'node:fs';
import { discoverProviders, loadHomeEnv, selectBrowser, type ProviderRegistry } from '../providers/index.js';
import { CamofoxClient } from '../gateway/backends/camofox/camofox-client.js';
import { apiKeyFile } from '../gateway/auth/api-key.js';
import { DEFAULT_CHROMIUM } from '../gateway/backends/cdp/chromium-process.js';
import { sandboxFor } from '../gateway/backends/cdp/chromium-sandbox.js';
import { providerDiscoveryOptions } from '../gateway/backends/providers/discovery-options.js';
import { configPath, pluginSection, readConfigFile, type GatewayConfig } from '../gateway/config/index.js';
import { silentLogger } from '../log/logger.js';
import { isLoopbackBind } from '../gateway/security/exposure.js';

export type FindingLevel = 'ok' | 'info' | 'warn' | 'risk' | 'error';

export interface Finding {
  level: FindingLevel;
  check: string;
  message: string;
}

export interface DoctorInput {
  config: GatewayConfig;
  env: Readonly<Record<string, string | undefined>>;
}

/** Group- or world-accessible bits of a file or folder, or null when it does not exist. */
function looseBits(file: string, mask: number): number | null {
  try {
    return fs.statSync(file).mode & mask;
  } catch {
    return null;
  }
}

const octal = (mode: number) => mode.toString(8).padStart(3, '0');

function checkBind(config: GatewayConfig): Finding {
  const host = config.gateway.host;
  if (isLoopbackBind(host)) return { level: 'ok', check: 'bind', message: `listens on loopback (${host})` };
  return {
    level: 'risk',
    check: 'bind',
    message: `gateway.host is ${host}: other machines can reach the gateway over plain HTTP. Bind 127.0.0.1 and put a TLS proxy in front (docs/security.md).`,
  };
}

function checkExtensionOrigins(config: GatewayConfig): Finding | null {
  const control = config.browser.extension_control;
  if (!control.enabled || control.allowed_origins.length === 0) return null;
  return {
    level: 'risk',
    check: 'extension_origins',
    message: `browser extension control is on and also trusts ${control.allowed_origins.join(', ')}: any of those extensions may pair and drive your tabs. Remove origins you do not recognise.`,
  };
}

function checkSecretsOnDisk(config: GatewayConfig): Finding[] {
  const findings: Finding[] = [];
  const file = configPath(config.home);
  let tree: Record<string, unknown> = {};
  try {
    tree = readConfigFile(file);
  } catch {
    // loadConfig already refused a broken file; nothing more to say here.
  }
  const gateway = tree.gateway as { api_server?: { key?: unknown } } | undefined;
  const keyInFile = typeof gateway?.api_server?.key === 'string' && gateway.api_server.key.length > 0;
  const configLoose = looseBits(file, 0o077);
  if (keyInFile && configLoose) {
    findings.push({
      level: 'risk',
      check: 'config_permissions',
      message: `${file} holds the API key and is readable by others (mode ${octal(configLoose)} beyond the owner). Run: chmod 600 ${file}`,
    });
  }
  const keyLoose = looseBits(apiKeyFile(config.home), 0o077);
  if (keyLoose) {
    findings.push({
      level: 'risk',
      check: 'api_key_permissions',
      message: `${apiKeyFile(config.home)} is readable by others. Run: chmod 600 ${apiKeyFile(config.home)}`,
    });
  }
  const homeLoose = looseBits(config.home, 0o007);
  if (homeLoose) {
    findings.push({
      level: 'risk',
      check: 'home_permissions',
      message: `${config.home} is open to every user (state.db holds sessions, pairing grants and the audit log). Run: chmod 700 ${config.home}`,
    });
  }
  return findings;
}

function remoteBackend(config: GatewayConfig, env: DoctorInput['env']): string | null {
  if (config.browser.cdp_url ?? env.BROWSER_CDP_URL) return 'a CDP URL';
  if (config.browser.cloud_provider && config.browser.cloud_provider !== 'local')
    return `cloud provider ${config.browser.cloud_provider}`;
  return null;
}

function checkPrivateUrls(config: GatewayConfig, env: DoctorInput['env']): Finding | null {
  const remote = remoteBackend(config, env);
  if (!config.browser.allow_private_urls || !remote) return null;
  return {
    level: 'risk',
    check: 'allow_private_urls',
    message: `browser.allow_private_urls is on with ${remote}: agents can make the remote browser open addresses inside your network. Turn it off unless you need it.`,
  };
}

const localBinary = (config: GatewayConfig): string =>
  config.browser.executable_path ?? config.chromePathFallback ?? DEFAULT_CHROMIUM;

/** Whether the local Chromium will run inside its sandbox: the same probe the launch uses. */
function checkSandbox(config: GatewayConfig, env: DoctorInput['env']): Finding | null {
  const binary = localBinary(config);
  if (remoteBackend(config, env) || !fs.existsSync(binary)) return null;
  const decision = sandboxFor(binary);
  if (config.browser.chromium_args.includes('--no-sandbox')) {
    return {
      level: 'warn',
      check: 'sandbox',
      message: `browser.chromium_args has --no-sandbox: the local browser runs without Chromium's sandbox${decision.sandboxed ? `, which would work here (${decision.via})` : ''}. Remove it unless Chromium fails to start without it.`,
    };
  }
  if (decision.sandboxed)
    return { level: 'ok', check: 'sandbox', message: `the local browser runs sandboxed (${decision.via})` };
  return {
    level: 'warn',
    check: 'sandbox',
    message: `the local browser runs without Chromium's sandbox (--no-sandbox): ${decision.reason}. To sandbox it: ${decision.fix}.`,
  };
}

function checkBrowser(config: GatewayConfig, env: DoctorInput['env']): Finding {
  const binary = localBinary(config);
  const remote = remoteBackend(config, env);
  if (fs.existsSync(binary)) return { level: 'ok', check: 'browser', message: `Chromium found at ${binary}` };
  return {
    level: remote ? 'info' : 'error',
    check: 'browser',
    message: `no Chromium at ${binary}${remote ? ` (not needed while ${remote} serves sessions)` : ''}. Install it (apt-get install chromium) or set CHROME_PATH or browser.executable_path.`,
  };
}

/**
 * Whether the Camofox server that would serve new sessions answers its health check: picked by the same
 * selection the gateway makes, so doctor never checks a Camofox the gateway would not use.
 */
async function checkCamofox(
  config: GatewayConfig,
  env: DoctorInput['env'],
  registry: ProviderRegistry,
): Promise<Finding | null> {
  const withHome: Record<string, string | undefined> = { ...env };
  loadHomeEnv(config.home, withHome);
  const section = pluginSection(config, 'camofox');
  const selection = selectBrowser({
    cloudProvider: config.browser.cloud_provider,
    cdpUrl: config.browser.cdp_url ?? withHome.BROWSER_CDP_URL,
    camofoxUrl: withHome.CAMOFOX_URL ?? (typeof section.url === 'string' ? section.url : undefined),
    registry,
    log: silentLogger,
  });
  if (selection.kind !== 'camofox' || !selection.url) return null;
  const where = new URL(selection.url).origin;
  const client = new CamofoxClient(selection.url, withHome.CAMOFOX_API_KEY);
  try {
    const reply = await client.request('GET', '/health', undefined, 5_000);
    if (reply.status < 300)
      return { level: 'ok', check: 'camofox', message: `Camofox answers its health check at ${where}` };
    return {
      level: 'error',
      check: 'camofox',
      message: `Camofox at ${where} answered its health check with HTTP ${reply.status}: ${client.describe(reply) || 'no reason given'}. Check CAMOFOX_API_KEY and the server.`,
    };
  } catch (error) {
    return {
      level: 'error',
      check: 'camofox',
      message: `Camofox at ${where} did not answer its health check: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

export async function runDoctorChecks(input: DoctorInput): Promise<Finding[]> {
  const { config, env } = input;
  const findings: Finding[] = [checkBind(config)];
  const origins = checkExtensionOrigins(config);
  if (origins) findings.push(origins);
  findings.push(...checkSecretsOnDisk(config));
  const privateUrls = checkPrivateUrls(config, env);
  if (privateUrls) findings.push(privateUrls);
  findings.push(checkBrowser(config, env));
  const sandbox = checkSandbox(config, env);
  if (sandbox) findings.push(sandbox);
  const { diagnostics, registry } = await discoverProviders(
    providerDiscoveryOptions(config, env, silentLogger),
  );
  const camofox = await checkCamofox(config, env, registry);
  if (camofox) findings.push(camofox);
  for (const d of diagnostics) {
    findings.push({
      level: d.level === 'error' ? 'warn' : 'info',
      check: 'plugin',
      message: `plugin ${d.plugin} (${d.source}, ${d.path}): ${d.message}`,
    });
  }
  return findings;
}

/** Whether the findings should make `tabgate doctor` fail. */
export const isFailing = (findings: readonly Finding[]): boolean =>
  findings.some((f) => f.level === 'risk' || f.level === 'error');
