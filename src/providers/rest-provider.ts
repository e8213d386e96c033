/**
 * The shared base of REST cloud providers (the bundled ones and most third-party ones): env lookup with a
 * typed missing-credentials error, JSON requests bounded by a timeout, vendor errors with secrets
 * redacted, and a close that never throws. A subclass states its endpoints and how to read the answer.
 */
import type {
  BrowserProvider,
  ProviderContext,
  ProviderSessionMetadata,
  ProviderSetupSchema,
} from './api.js';
import { ProviderApiError, ProviderNotConfiguredError } from './errors.js';
import { redactSecrets } from './redact.js';
import { providerSessionName } from './session-name.js';

export interface RestResponse {
  status: number;
  /** Parsed JSON, or undefined when the body was empty or not JSON. */
  json: unknown;
  text: string;
  headers: Headers;
}

export interface RestRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: unknown;
  timeoutMs: number;
}

/** Timeouts in milliseconds: a hanging vendor must never hang session creation or shutdown. */
export interface RestTimeouts {
  create: number;
  close: number;
  emergency: number;
}

export const DEFAULT_REST_TIMEOUTS: RestTimeouts = { create: 30_000, close: 10_000, emergency: 5_000 };

/** Release answers that count as success. */
const RELEASED = new Set([200, 201, 204]);

export abstract class RestBrowserProvider implements BrowserProvider {
  abstract readonly name: string;
  abstract readonly displayName: string;
  /** Env vars that must all be set (checked by isAvailable and createSession). */
  protected abstract readonly requiredEnv: readonly string[];
  protected readonly timeouts: RestTimeouts;

  constructor(
    protected readonly ctx: ProviderContext,
    timeouts: Partial<RestTimeouts> = {},
  ) {
    this.timeouts = { ...DEFAULT_REST_TIMEOUTS, ...timeouts };
  }

  abstract createSession(taskId: string): Promise<ProviderSessionMetadata>;
  /** Sends the vendor's release call; the base class turns its status into true/false and catches everything. */
  protected abstract release(sessionId: string, timeoutMs: number): Promise<RestResponse>;
  abstract getSetupSchema(): ProviderSetupSchema | null;

  isAvailable(): boolean {
    return this.missingEnv().length === 0;
  }

  /** An env value, trimmed; empty counts as unset. */
  protected envValue(key: string): string | undefined {
    const value = this.ctx.env[key]?.trim();
    return value ? value : undefined;
  }

  protected missingEnv(): string[] {
    return this.requiredEnv.filter((key) => this.envValue(key) === undefined);
  }

  /** The required env values, or ProviderNotConfiguredError naming every missing one. */
  protected requireEnv(): Record<string, string> {
    const missing = this.missingEnv();
    if (missing.length > 0) throw new ProviderNotConfiguredError(this.name, this.displayName, missing);
    return Object.fromEntries(this.requiredEnv.map((key) => [key, this.envValue(key) ?? '']));
  }

  /** Values scrubbed from every error: by default all required env values (keys, ids). */
  protected secrets(): string[] {
    return this.requiredEnv.map((key) => this.envValue(key)).filter((v): v is string => v !== undefined);
  }

  protected sessionName(taskId: string): string {
    return providerSessionName(taskId);
  }

  /** A JSON request; an unreachable vendor or a timeout becomes ProviderApiError with status 0. */
  protected async request(request: RestRequest): Promise<RestResponse> {
    const headers: Record<string, string> = { Accept: 'application/json', ...request.headers };
    if (request.body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    let text: string;
    try {
      response = await fetch(request.url, {
        method: request.method,
        headers,
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
        signal: AbortSignal.timeout(request.timeoutMs),
        // A redirect would carry the key header to another origin; vendors' APIs do not redirect.
        redirect: 'error',
      });
      text = await response.text();
    } catch (error) {
      const reason =
        error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')
          ? `no answer within ${request.timeoutMs} ms`
          : errorText(error);
      throw new ProviderApiError(
        this.name,
        `${this.displayName} API connection failed`,
        0,
        reason,
        this.secrets(),
      );
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, json, text, headers: response.headers };
  }

  /** Throws ProviderApiError unless the status is 2xx. */
  protected expectOk(response: RestResponse, what: string): Record<string, unknown> {
    if (response.status < 200 || response.status > 299) {
      throw new ProviderApiError(this.name, what, response.status, response.text, this.secrets());
    }
    if (typeof response.json !== 'object' || response.json === null || Array.isArray(response.json)) {
      throw new ProviderApiError(
        this.name,
        `${what}: the answer is not a JSON object`,
        response.status,
        response.text,
        this.secrets(),
      );
    }
    return response.json as Record<string, unknown>;
  }

  /** The first of `keys` that holds a non-empty string, or ProviderApiError. */
  protected requireString(body: Record<string, unknown>, keys: string[], what: string): string {
    const value = pickString(body, keys);
    if (value === undefined) {
      throw new ProviderApiError(
        this.name,
        `${what}: the answer has no ${keys.join(' or ')}`,
        200,
        JSON.stringify(body),
        this.secrets(),
      );
    }
    return value;
  }

  async closeSession(sessionId: string): Promise<boolean> {
    return this.releaseSafely(sessionId, this.timeouts.close, 'close');
  }

  async emergencyCleanup(sessionId: string): Promise<boolean> {
    return this.releaseSafely(sessionId, this.timeouts.emergency, 'emergency cleanup');
  }

  private async releaseSafely(sessionId: string, timeoutMs: number, what: string): Promise<boolean> {
    try {
      const response = await this.release(sessionId, timeoutMs);
      if (RELEASED.has(response.status)) return true;
      this.ctx.log.warn(`${this.displayName} ${what} failed`, {
        provider: this.name,
        session: sessionId,
        status: response.status,
      });
      return false;
    } catch (error) {
      this.ctx.log.warn(`${this.displayName} ${what} failed`, {
        provider: this.name,
        session: sessionId,
        error: redactSecrets(errorText(error), this.secrets()),
      });
      return false;
    }
  }
}

export function pickString(body: Record<string, unknown>, keys: string[]): string | undefined {
  for (const key of keys) {
    const value = body[key];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}

function errorText(error: unknown): string {
  if (error instanceof Error) {
    const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
    return `${error.message}${cause}`;
  }
  return String(error);
}
