/**
 * Browserbase (https://docs.browserbase.com): `POST /v1/sessions` with `X-BB-API-Key`, released with
 * `POST /v1/sessions/{id}` `{projectId, status: "REQUEST_RELEASE"}`. Keep-alive and proxies are paid
 * features: on HTTP 402 the session is requested again without them, and what was denied is remembered
 * so later sessions do not pay the extra round trip. `features` reports what was actually granted.
 */
import type { ProviderContext, ProviderSessionMetadata, ProviderSetupSchema } from '../api.js';
import { RestBrowserProvider, type RestResponse, type RestTimeouts } from '../rest-provider.js';
import { parseFlag, parsePositiveInt, trimSlash } from './env-flags.js';

const DEFAULT_BASE_URL = 'https://api.browserbase.com';
/** Browserbase caps a session at six hours. */
const MAX_TIMEOUT_SECONDS = 21_600;

/** Dropped in this order when Browserbase answers 402 Payment Required. */
const PAID_FEATURES = ['keep_alive', 'proxies'] as const;
type PaidFeature = (typeof PAID_FEATURES)[number];

export class BrowserbaseProvider extends RestBrowserProvider {
  readonly name = 'browserbase';
  readonly displayName = 'Browserbase';
  protected readonly requiredEnv = ['BROWSERBASE_API_KEY', 'BROWSERBASE_PROJECT_ID'] as const;
  /** Paid features this account was refused; skipped from then on. */
  private readonly denied = new Set<PaidFeature>();

  constructor(ctx: ProviderContext, timeouts?: Partial<RestTimeouts>) {
    super(ctx, timeouts);
  }

  private get baseUrl(): string {
    return trimSlash(this.envValue('BROWSERBASE_BASE_URL') ?? DEFAULT_BASE_URL);
  }

  /** The paid features denied so far (for diagnostics and tests). */
  deniedFeatures(): string[] {
    return [...this.denied];
  }

  async createSession(taskId: string): Promise<ProviderSessionMetadata> {
    const env = this.requireEnv();
    const apiKey = env.BROWSERBASE_API_KEY ?? '';
    const projectId = env.BROWSERBASE_PROJECT_ID ?? '';
    const advancedStealth = parseFlag(this.envValue('BROWSERBASE_ADVANCED_STEALTH'), false);
    const timeout = parsePositiveInt(this.envValue('BROWSERBASE_SESSION_TIMEOUT'), MAX_TIMEOUT_SECONDS);
    if (this.envValue('BROWSERBASE_SESSION_TIMEOUT') !== undefined && timeout === undefined) {
      this.ctx.log.warn('BROWSERBASE_SESSION_TIMEOUT ignored: expected whole seconds from 1 to 21600');
    }
    const wanted: Record<PaidFeature, boolean> = {
      keep_alive: parseFlag(this.envValue('BROWSERBASE_KEEP_ALIVE'), true) && !this.denied.has('keep_alive'),
      proxies: parseFlag(this.envValue('BROWSERBASE_PROXIES'), true) && !this.denied.has('proxies'),
    };
    const droppedNow: PaidFeature[] = [];

    for (;;) {
      const body: Record<string, unknown> = { projectId };
      if (wanted.keep_alive) body.keepAlive = true;
      if (timeout !== undefined) body.timeout = timeout;
      if (wanted.proxies) body.proxies = true;
      if (advancedStealth) body.browserSettings = { advancedStealth: true };
      const response = await this.request({
        method: 'POST',
        url: `${this.baseUrl}/v1/sessions`,
        headers: { 'X-BB-API-Key': apiKey },
        body,
        timeoutMs: this.timeouts.create,
      });
      const next = PAID_FEATURES.find((feature) => wanted[feature]);
      if (response.status === 402 && next !== undefined) {
        this.ctx.log.warn(`Browserbase refused a paid feature (402); retrying without it`, { feature: next });
        wanted[next] = false;
        droppedNow.push(next);
        continue;
      }
      const session = this.expectOk(response, 'Failed to create Browserbase session');
      for (const feature of droppedNow) this.denied.add(feature);
      const id = this.requireString(session, ['id'], 'Failed to create Browserbase session');
      return {
        session_name: this.sessionName(taskId),
        bb_session_id: id,
        cdp_url: this.requireString(session, ['connectUrl'], 'Failed to create Browserbase session'),
        features: {
          basic_stealth: true,
          proxies: wanted.proxies,
          advanced_stealth: advancedStealth,
          keep_alive: wanted.keep_alive,
          custom_timeout: timeout !== undefined,
        },
      };
    }
  }

  protected async release(sessionId: string, timeoutMs: number): Promise<RestResponse> {
    const env = this.requireEnv();
    return this.request({
      method: 'POST',
      url: `${this.baseUrl}/v1/sessions/${encodeURIComponent(sessionId)}`,
      headers: { 'X-BB-API-Key': env.BROWSERBASE_API_KEY ?? '' },
      body: { projectId: env.BROWSERBASE_PROJECT_ID, status: 'REQUEST_RELEASE' },
      timeoutMs,
    });
  }

  getSetupSchema(): ProviderSetupSchema {
    return {
      name: 'Browserbase',
      badge: 'paid',
      tag: 'Cloud browser with stealth and proxies',
      env_vars: [
        {
          key: 'BROWSERBASE_API_KEY',
          prompt: 'Browserbase API key',
          url: 'https://browserbase.com',
          secret: true,
        },
        { key: 'BROWSERBASE_PROJECT_ID', prompt: 'Browserbase project ID', secret: false },
      ],
    };
  }
}
