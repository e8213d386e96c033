/**
 * A self-hosted browser at a fixed CDP endpoint (a Chromium started with --remote-debugging-port, a
 * browserless container, …), chosen like any provider. The endpoint comes from config
 * `browser.remote_cdp.url` or REMOTE_CDP_URL. There is no vendor API: a "session" is tabgate's own
 * isolated context in that browser, which the backend opens and closes; release has nothing to do.
 * Unlike `browser.cdp_url`, it does not override the selection; it is one.
 */
import { randomBytes } from 'node:crypto';
import { TabgateError } from '../../protocol/index.js';
import type {
  BrowserProvider,
  ProviderContext,
  ProviderSessionMetadata,
  ProviderSetupSchema,
} from '../api.js';
import { ProviderNotConfiguredError } from '../errors.js';
import { providerSessionName } from '../session-name.js';

const ENV_KEY = 'REMOTE_CDP_URL';

export class RemoteCdpProvider implements BrowserProvider {
  readonly name = 'remote-cdp';
  readonly displayName = 'Remote CDP browser';

  constructor(private readonly ctx: ProviderContext) {}

  private endpoint(): string | undefined {
    const configured = this.ctx.config(this.name).url;
    const value = typeof configured === 'string' && configured.trim() ? configured : this.ctx.env[ENV_KEY];
    return value?.trim() || undefined;
  }

  isAvailable(): boolean {
    return this.endpoint() !== undefined;
  }

  async createSession(taskId: string): Promise<ProviderSessionMetadata> {
    const endpoint = this.endpoint();
    if (endpoint === undefined) throw new ProviderNotConfiguredError(this.name, this.displayName, [ENV_KEY]);
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      url = new URL('invalid:');
    }
    if (!['ws:', 'wss:', 'http:', 'https:'].includes(url.protocol)) {
      // Never echo the value: self-hosted endpoints often carry a token in the query.
      throw new TabgateError(
        'provider_not_configured',
        `${ENV_KEY} (or browser.remote_cdp.url) must be a ws(s):// or http(s):// CDP endpoint. Run \`tabgate tools\` to fix it.`,
        { provider: this.name },
      );
    }
    return {
      session_name: providerSessionName(taskId, 'remote_cdp'),
      bb_session_id: `remote-cdp_${randomBytes(5).toString('hex')}`,
      cdp_url: endpoint,
      // One browser serves every session, so each session gets its own context in it.
      features: { remote_cdp: true, shared_browser: true },
    };
  }

  async closeSession(): Promise<boolean> {
    return true;
  }

  async emergencyCleanup(): Promise<boolean> {
    return true;
  }

  getSetupSchema(): ProviderSetupSchema {
    return {
      name: 'Remote CDP browser',
      badge: 'self-hosted',
      tag: 'Any browser you run, reached at its CDP endpoint',
      env_vars: [
        {
          key: ENV_KEY,
          prompt: 'CDP endpoint (ws://host:port/devtools/browser/… or http://host:port)',
          secret: true,
        },
      ],
    };
  }
}
