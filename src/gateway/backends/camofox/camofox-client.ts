/**
 * Camofox's REST API (`CAMOFOX_URL`, Bearer `CAMOFOX_API_KEY`): one request at a time with a timeout,
 * its failures as tabgate's errors. The key never appears in an error or a log.
 */
import { TabgateError } from '../../../protocol/index.js';
import { redactSecrets } from '../../../providers/index.js';

export interface CamofoxReply {
  status: number;
  body: Record<string, unknown>;
}

export class CamofoxClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string | undefined,
  ) {}

  async request(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body: Record<string, unknown> | undefined,
    timeoutMs: number,
  ): Promise<CamofoxReply> {
    const headers: Record<string, string> = {};
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    let response: Response;
    try {
      response = await fetch(new URL(path, this.baseUrl), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && error.name === 'TimeoutError';
      throw new TabgateError(
        timedOut ? 'command_timeout' : 'backend_unavailable',
        timedOut
          ? `Camofox did not answer ${method} ${path.split('?')[0]} in time.`
          : 'Camofox is not reachable at CAMOFOX_URL; is the server running?',
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { error: text };
    }
    const record =
      typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    return { status: response.status, body: record };
  }

  /** The server's own words about a failure, whole, with anything secret taken out. */
  words(reply: CamofoxReply): string {
    const raw = reply.body.error ?? reply.body.message ?? '';
    const text = typeof raw === 'string' ? raw : JSON.stringify(raw);
    return redactSecrets(text, [this.apiKey]);
  }

  /** The same, short enough for a message. */
  describe(reply: CamofoxReply): string {
    return this.words(reply).slice(0, 300);
  }
}
