/**
 * One tabgate session on Camofox: the Camofox user it browses as and the one tab it has (made on the
 * first navigation), with the REST calls on that tab. A tab Camofox collected while idle, or that
 * tabgate took off a refused page, is forgotten, so no later call reaches it.
 */
import { TabgateError } from '../../../protocol/index.js';
import type { CamofoxClient, CamofoxReply } from './camofox-client.js';
import { camofoxFailure } from './camofox-errors.js';
import { camofoxRef, type CamofoxSnapshot } from './camofox-snapshot.js';

const NAVIGATE_TIMEOUT_MS = 60_000;

export class CamofoxTab {
  tabId: string | null = null;
  /** The origin of the page the session last read (a snapshot, a navigation): where an input lands. */
  pageOrigin: string | null = null;

  constructor(
    private readonly client: CamofoxClient,
    /** The tabgate session it serves: its site rules are looked up by this id. */
    readonly sessionId: string,
    readonly userId: string,
    /** Whether tabgate made the user (and deletes it on close), or the owner named one to keep. */
    readonly ownUser: boolean,
    private readonly sessionKey: string,
    /** The cap on one call (`browser.command_timeout`), read at each call. */
    private readonly timeoutMs: () => number,
  ) {}

  /** Opens `url` in the tab, or in a new one; Camofox's reply, or null when it gave none. */
  async open(url: string): Promise<CamofoxReply | null> {
    let reply: CamofoxReply | null = null;
    if (this.tabId) {
      reply = await this.client.request(
        'POST',
        `/tabs/${encodeURIComponent(this.tabId)}/navigate`,
        { userId: this.userId, url },
        NAVIGATE_TIMEOUT_MS,
      );
      // Camofox collects idle tabs: a 404 means a fresh one is needed.
      if (reply.status === 404) this.tabId = null;
    }
    if (!this.tabId) {
      reply = await this.client.request(
        'POST',
        '/tabs',
        { userId: this.userId, sessionKey: this.sessionKey, listItemId: this.sessionKey, url },
        NAVIGATE_TIMEOUT_MS,
      );
      const tabId = reply.body.tabId;
      if (reply.status < 300 && typeof tabId === 'string') this.tabId = tabId;
    }
    return reply;
  }

  async snapshot(): Promise<CamofoxSnapshot> {
    const tabId = this.requireTab();
    const reply = await this.client.request(
      'GET',
      `/tabs/${encodeURIComponent(tabId)}/snapshot?userId=${encodeURIComponent(this.userId)}`,
      undefined,
      this.timeoutMs(),
    );
    if (reply.status === 404 && typeof reply.body.code !== 'string') throw this.gone();
    if (reply.status >= 300) {
      const failure = camofoxFailure(reply, 'snapshot', undefined, this.client.words(reply));
      if (failure.tabGone) this.tabId = null;
      throw failure.error;
    }
    if (typeof reply.body.snapshot !== 'string')
      throw new TabgateError('backend_unavailable', 'Camofox answered the snapshot without one.');
    return reply.body as unknown as CamofoxSnapshot;
  }

  async onRef(action: 'click' | 'type', ref: string, extra: object): Promise<void> {
    const id = camofoxRef(ref);
    if (!id) throw new TabgateError('stale_ref', `${ref} is not a ref from this page.`);
    await this.act(action, { ref: id, ...extra }, ref);
  }

  /** One call on the tab; a refusal becomes the code other backends give for the same case. */
  async act(action: string, body: object, ref?: string): Promise<CamofoxReply> {
    const tabId = this.requireTab();
    const reply = await this.client.request(
      'POST',
      `/tabs/${encodeURIComponent(tabId)}/${action}`,
      { userId: this.userId, ...body },
      this.timeoutMs(),
    );
    if (reply.status < 300) return reply;
    // Camofox's own "Tab not found" carries no code: the tab was collected while idle.
    if (reply.status === 404 && typeof reply.body.code !== 'string') throw this.gone();
    const failure = camofoxFailure(reply, action, ref, this.client.words(reply));
    if (failure.tabGone) this.tabId = null;
    throw failure.error;
  }

  /** Takes the tab off its page and forgets it; rejects when Camofox did not (forgotten all the same). */
  async drop(): Promise<void> {
    const tabId = this.tabId;
    this.tabId = null;
    if (!tabId) return;
    await this.client.request(
      'POST',
      `/tabs/${encodeURIComponent(tabId)}/navigate`,
      { userId: this.userId, url: 'about:blank' },
      this.timeoutMs(),
    );
  }

  /** Deletes the Camofox user (its cookies, its tabs) when tabgate made it. */
  async close(): Promise<void> {
    if (!this.ownUser) return;
    await this.client.request('DELETE', `/sessions/${encodeURIComponent(this.userId)}`, undefined, 10_000);
  }

  private requireTab(): string {
    if (!this.tabId) throw new TabgateError('no_page', 'No page is open on Camofox yet; navigate first.');
    return this.tabId;
  }

  private gone(): TabgateError {
    this.tabId = null;
    return new TabgateError('no_page', 'Camofox closed the tab (idle); navigate again.');
  }
}
