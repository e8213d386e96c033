/**
 * Browser Use cloud browsers, API v3 (https://docs.browser-use.com): `POST /browsers` with
 * `X-Browser-Use-API-Key`, stopped with `PATCH /browsers/{id}` `{action: "stop"}`. The answer's
 * `liveUrl` and `timeoutAt` become `live_url` and `expires_at`.
 */
import type { ProviderContext, ProviderSessionMetadata, ProviderSetupSchema } from '../api.js';
import { RestBrowserProvider, pickString, type RestResponse, type RestTimeouts } from '../rest-provider.js';
import { trimSlash } from './env-flags.js';

const DEFAULT_BASE_URL = 'https://api.browser-use.com/api/v3';

export class BrowserUseProvider extends RestBrowserProvider {
  readonly name = 'browser-use';
  readonly displayName = 'Browser Use';
  protected readonly requiredEnv = ['BROWSER_USE_API_KEY'] as const;

  constructor(ctx: ProviderContext, timeouts?: Partial<RestTimeouts>) {
    super(ctx, timeouts);
  }

  private get baseUrl(): string {
    return trimSlash(this.envValue('BROWSER_USE_BASE_URL') ?? DEFAULT_BASE_URL);
  }

  async createSession(taskId: string): Promise<ProviderSessionMetadata> {
    const { BROWSER_USE_API_KEY: apiKey = '' } = this.requireEnv();
    const response = await this.request({
      method: 'POST',
      url: `${this.baseUrl}/browsers`,
      headers: { 'X-Browser-Use-API-Key': apiKey },
      body: {},
      timeoutMs: this.timeouts.create,
    });
    const what = 'Failed to create Browser Use browser';
    const browser = this.expectOk(response, what);
    const metadata: ProviderSessionMetadata = {
      session_name: this.sessionName(taskId),
      bb_session_id: this.requireString(browser, ['id'], what),
      cdp_url: this.requireString(browser, ['cdpUrl', 'connectUrl'], what),
      features: { browser_use: true },
    };
    const liveUrl = pickString(browser, ['liveUrl']);
    const expiresAt = pickString(browser, ['timeoutAt']);
    if (liveUrl) metadata.live_url = liveUrl;
    if (expiresAt) metadata.expires_at = expiresAt;
    return metadata;
  }

  protected async release(sessionId: string, timeoutMs: number): Promise<RestResponse> {
    const { BROWSER_USE_API_KEY: apiKey = '' } = this.requireEnv();
    return this.request({
      method: 'PATCH',
      url: `${this.baseUrl}/browsers/${encodeURIComponent(sessionId)}`,
      headers: { 'X-Browser-Use-API-Key': apiKey },
      body: { action: 'stop' },
      timeoutMs,
    });
  }

  // The reference hides this row (its picker entry became a CLI backend); tabgate has no such backend,
  // and a provider that cannot be configured from `tabgate tools` is not done, so it has a row.
  getSetupSchema(): ProviderSetupSchema {
    return {
      name: 'Browser Use',
      badge: 'paid',
      tag: 'Cloud browser with a live view',
      env_vars: [
        {
          key: 'BROWSER_USE_API_KEY',
          prompt: 'Browser Use API key',
          url: 'https://cloud.browser-use.com',
          secret: true,
        },
      ],
    };
  }
}
