/**
 * The implementations behind plugins/browser/<name>/. They are compiled with tabgate (so they are
 * type-checked and ship in dist/ after `npm ci`) and reach the registry only through their plugin's
 * `register(ctx)`, exactly like a third-party provider, so a user plugin of the same name replaces one.
 */
import type { BrowserProvider, ProviderContext } from '../api.js';
import { BrowserbaseProvider } from './browserbase.js';
import { BrowserUseProvider } from './browser-use.js';
import { FirecrawlProvider } from './firecrawl.js';
import { RemoteCdpProvider } from './remote-cdp.js';

export interface BundledProviderFactories {
  browserbase(ctx: ProviderContext): BrowserProvider;
  'browser-use'(ctx: ProviderContext): BrowserProvider;
  firecrawl(ctx: ProviderContext): BrowserProvider;
  'remote-cdp'(ctx: ProviderContext): BrowserProvider;
}

export const BUNDLED_PROVIDERS: BundledProviderFactories = {
  browserbase: (ctx) => new BrowserbaseProvider(ctx),
  'browser-use': (ctx) => new BrowserUseProvider(ctx),
  firecrawl: (ctx) => new FirecrawlProvider(ctx),
  'remote-cdp': (ctx) => new RemoteCdpProvider(ctx),
};

export { BrowserbaseProvider, BrowserUseProvider, FirecrawlProvider, RemoteCdpProvider };
