/**
 * The engine on a browser someone else runs, reached by a CDP URL: `browser.cdp_url`, or a cloud
 * provider's session. A `ws(s)://…/devtools/browser/…` URL is used as is; an http(s) URL (or a bare
 * `ws://host:port`) is resolved through `/json/version`. A browser whose remote debugging was turned on
 * from chrome://inspect (Chrome 144+) answers that with 404 and takes the WebSocket at the URL itself,
 * so a ws(s) URL is then connected to as given. Closing only disconnects: the browser is theirs.
 */
import { TabgateError } from '../../../protocol/index.js';
import type { Logger } from '../../../log/logger.js';
import type { TimerClock } from '../../clock.js';
import type { Resolver } from '../network-policy.js';
import type { BrowserSettings } from '../../config/browser-settings.js';
import type { SiteRulesSource } from '../site-rules-source.js';
import { CdpConnection } from './cdp-connection.js';
import { EngineBackend } from './engine-backend.js';

export interface CdpUrlBackendOptions {
  /** Shown in logs and errors: `cdp-url`, or the provider's name. */
  name?: string;
  cdpUrl: string;
  /** Remote browsers refuse private addresses (docs/security.md, "Where a browser may go"); default true. */
  remote?: boolean;
  /** A context per session (default); false drives the browser's default context and its pages. */
  isolated?: boolean;
  /** DNS for the network policy (tests pass a fixed table). */
  resolve?: Resolver;
  /** Site grants (docs/safety.md); none judged without it. */
  sites?: SiteRulesSource;
  /** Deadlines, admission waits and idle-outs run on it (the system's by default). */
  clock?: TimerClock;
}

export async function resolveCdpEndpoint(raw: string, timeoutMs = 10_000): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TabgateError('invalid_request', 'The CDP URL is not a valid URL.');
  }
  if (/^wss?:$/.test(url.protocol) && url.pathname.includes('/devtools/')) return url.href;
  if (!/^(wss?|https?):$/.test(url.protocol))
    throw new TabgateError('invalid_request', 'A CDP URL is ws(s):// or http(s)://.');
  const http = new URL(url.href.replace(/^ws/, 'http'));
  http.pathname = '/json/version';
  let status = 0;
  try {
    const response = await fetch(http, { signal: AbortSignal.timeout(timeoutMs) });
    status = response.status;
    if (response.ok) {
      const body = (await response.json()) as { webSocketDebuggerUrl?: unknown };
      if (typeof body.webSocketDebuggerUrl === 'string') return body.webSocketDebuggerUrl;
    }
  } catch {
    // Reported below without the URL, which may carry a provider's token.
  }
  if (status === 404 && /^wss?:$/.test(url.protocol)) return url.href;
  throw new TabgateError(
    'backend_unavailable',
    status === 404
      ? 'The CDP endpoint has no /json/version (a browser shared from chrome://inspect): give its ws:// URL instead.'
      : 'The CDP endpoint did not answer /json/version with a webSocketDebuggerUrl.',
  );
}

export function createCdpUrlBackend(
  options: CdpUrlBackendOptions,
  settings: BrowserSettings,
  log: Logger,
): EngineBackend {
  return new EngineBackend(
    {
      name: options.name ?? 'cdp-url',
      remote: options.remote ?? true,
      isolated: options.isolated ?? true,
      resolve: options.resolve,
      async open() {
        const endpoint = await resolveCdpEndpoint(options.cdpUrl);
        let connection: CdpConnection;
        try {
          connection = await CdpConnection.connect(endpoint);
        } catch {
          throw new TabgateError(
            'backend_unavailable',
            'Could not connect to the browser at the configured CDP URL.',
          );
        }
        return {
          connection,
          async dispose() {
            connection.close();
          },
        };
      },
    },
    settings,
    log,
    options.sites,
    options.clock,
  );
}
