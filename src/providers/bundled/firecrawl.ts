/**
 * Firecrawl browser sessions (https://docs.firecrawl.dev): `POST /v2/browser` with a Bearer key and
 * `{ttl}`, deleted with `DELETE /v2/browser/{id}`. Never auto-selected: FIRECRAWL_API_KEY is often set for
 * scraping alone, and having it must not route anyone to a paid browser.
 */
import type { ProviderContext, ProviderSessionMetadata, ProviderSetupSchema } from '../api.js';
import { RestBrowserProvider, pickString, type RestResponse, type RestTimeouts } from '../rest-provider.js';
import { parsePositiveInt, trimSlash } from './env-flags.js';

const DEFAULT_API_URL = 'https://api.firecrawl.dev';
const DEFAULT_TTL_SECONDS = 300;

export class FirecrawlProvider extends RestBrowserProvider {
  readonly name = 'firecrawl';
  readonly displayName = 'Firecrawl';
  protected readonly requiredEnv = ['FIRECRAWL_API_KEY'] as const;

  constructor(ctx: ProviderContext, timeouts?: Partial<RestTimeouts>) {
    super(ctx, timeouts);
  }

  private get apiUrl(): string {
    return trimSlash(this.envValue('FIRECRAWL_API_URL') ?? DEFAULT_API_URL);
  }

  async createSession(taskId: string): Promise<ProviderSessionMetadata> {
    const { FIRECRAWL_API_KEY: apiKey = '' } = this.requireEnv();
    const ttl = parsePositiveInt(this.envValue('FIRECRAWL_BROWSER_TTL'), 86_400) ?? DEFAULT_TTL_SECONDS;
    const response = await this.request({
      method: 'POST',
      url: `${this.apiUrl}/v2/browser`,
      headers: { Authorization: `Bearer ${apiKey}` },
      body: { ttl },
      timeoutMs: this.timeouts.create,
    });
    const what = 'Failed to create Firecrawl browser session';
    const session = this.expectOk(response, what);
    const metadata: ProviderSessionMetadata = {
      session_name: this.sessionName(taskId),
      bb_session_id: this.requireString(session, ['id'], what),
      cdp_url: this.requireString(session, ['cdpUrl'], what),
      features: { firecrawl: true, ttl },
    };
    const liveUrl = pickString(session, ['liveViewUrl', 'liveUrl']);
    const expiresAt = pickString(session, ['expiresAt']);
    if (liveUrl) metadata.live_url = liveUrl;
    if (expiresAt) metadata.expires_at = expiresAt;
    return metadata;
  }

  protected async release(sessionId: string, timeoutMs: number): Promise<RestResponse> {
    const { FIRECRAWL_API_KEY: apiKey = '' } = this.requireEnv();
    return this.request({
      method: 'DELETE',
      url: `${this.apiUrl}/v2/browser/${encodeURIComponent(sessionId)}`,
      headers: { Authorization: `Bearer ${apiKey}` },
      timeoutMs,
    });
  }

  getSetupSchema(): ProviderSetupSchema {
    return {
      name: 'Firecrawl',
      badge: 'paid',
      tag: 'Cloud browser with remote execution',
      env_vars: [
        { key: 'FIRECRAWL_API_KEY', prompt: 'Firecrawl API key', url: 'https://firecrawl.dev', secret: true },
      ],
    };
  }
}
