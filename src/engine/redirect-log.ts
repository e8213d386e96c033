/**
 * The pages a navigation passed through before it settled, and how each sent the browser on: an HTTP
 * redirect (with its status), a meta refresh, a `Refresh` header, a form the page submitted, or a script.
 * Login flows are chains of these; an agent told only where it landed cannot tell a sign-in bounce from
 * the page it asked for.
 */
import type { RedirectHop } from '../protocol/index.js';

/** `Page.frameRequestedNavigation`'s reasons, as the hop names them. */
const CLIENT_VIA: Record<string, RedirectHop['via']> = {
  metaTagRefresh: 'meta_refresh',
  httpHeaderRefresh: 'refresh_header',
  formSubmissionGet: 'form',
  formSubmissionPost: 'form',
};

/** A chain longer than this is cut (the browser gives up on loops long before). */
const MAX_HOPS = 20;

export class RedirectLog {
  private hops: RedirectHop[] = [];
  private recording = false;

  /** Starts a fresh chain: one navigation's worth. */
  start(): void {
    this.hops = [];
    this.recording = true;
  }

  /** The chain so far, and stops recording. */
  finish(): RedirectHop[] {
    this.recording = false;
    return this.hops;
  }

  /** A main-frame document request was redirected by the server. */
  http(fromUrl: string, status: number): void {
    this.add({ url: fromUrl, via: 'http', status });
  }

  /** The page in the main frame asked to go elsewhere (`reason` from `Page.frameRequestedNavigation`). */
  client(fromUrl: string, reason: string): void {
    this.add({ url: fromUrl, via: CLIENT_VIA[reason] ?? 'script' });
  }

  private add(hop: RedirectHop): void {
    if (!this.recording || this.hops.length >= MAX_HOPS) return;
    const last = this.hops.at(-1);
    // A page that asks twice (a script and a meta refresh racing) is one hop.
    if (last && last.url === hop.url && last.via !== 'http' && hop.via !== 'http') return;
    this.hops.push(hop);
  }
}
