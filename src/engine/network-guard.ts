/**
 * Where the browser may go, enforced on the wire rather than on the tool's arguments: `Fetch`
 * interception on the browser-level session pauses every request of every target before it leaves the
 * browser (main frames, iframes in and out of process, popups from their very first navigation,
 * workers and service workers, subresources, each hop of a redirect) until the guard lets it go or
 * fails it. The judge decides by host; it answers a host it judged recently at once (the hot path is a
 * Map lookup), and only a new name waits for its lookup.
 *
 * A refused navigation is aborted: nothing commits, so the tab stays on the page it was on, with no
 * history entry for the refused address (`browser_back` cannot return there) and no swap to an error
 * page process that the engine's next command could race. A refused subresource fails with
 * `BlockedByClient`, which the page's console names.
 *
 * Documents (main-frame and sub-frame navigations, popups' first navigations, each redirect hop) are
 * also put to the frame judge, when there is one: the site grants of the session the frame belongs to.
 * Before either, every request whose URL carries a vault secret a session filled is failed
 * (`secret_in_url`): a page cannot carry a filled value off in a query string, an image or a fetch; and
 * one whose body carries it to an origin other than the secret's own (`secret_in_body`): nor in a POST.
 */
import { bodyText, type RequestBody } from './secret-forms.js';
import type { CdpSession } from './transport.js';
import type { SiteRefusalRule } from '../protocol/index.js';

export type RefusalCode =
  | 'private_url_blocked'
  | 'metadata_url_blocked'
  | 'site_not_granted'
  | 'site_blocked'
  | 'approval_denied'
  | 'secret_in_url'
  | 'secret_in_body';

export type HostVerdict =
  | { allowed: true }
  /** `rule`: which site rule refused, when a site decision did (its code alone does not tell). */
  | { allowed: false; code: RefusalCode; reason: string; rule?: SiteRefusalRule };

/** Decides whether the browser may reach a host (lower-case; an IPv6 address without brackets). */
export interface HostJudge {
  judge(host: string): HostVerdict | Promise<HostVerdict>;
}

/** Decides whether a frame may be moved to a URL (the site grants of the frame's session). */
export interface FrameJudge {
  judgeFrame(url: string, frameId: string | undefined): HostVerdict | Promise<HostVerdict>;
}

/**
 * Names the vault secret a request's URL carries, in any encoding, of those the engine's sessions have
 * filled; null when it carries none. Checked before anything else, for every request that would leave.
 */
export interface UrlSecretJudge {
  secretIn(url: string): string | null;
  /** The same for a request's body, sent to `url`: null too when `url` is the secret's own origin. */
  secretInBody?(url: string, body: string): string | null;
}

export interface Refusal {
  /** The request's URL; only its origin when it carried a secret (in its URL or its body). */
  url: string;
  /** The frame the request belongs to (a page's main frame id is its target id). */
  frameId: string | undefined;
  /** CDP's resource type: `Document` for a navigation, `Image`, `XHR`, `Fetch`, … */
  resourceType: string;
  code: RefusalCode;
  reason: string;
  rule?: SiteRefusalRule;
}

/**
 * Holds an allowed request until an approval is decided (action-gate.ts): null lets it go at once, a
 * promise lets it go on `true` and fails it on `false`.
 */
export interface RequestHolder {
  hold(request: {
    url: string;
    method: string;
    frameId: string | undefined;
    resourceType: string;
  }): Promise<boolean> | null;
}

interface RequestPaused {
  requestId: string;
  request: { url: string; method?: string } & RequestBody;
  frameId?: string;
  resourceType: string;
}

/** The host of a URL the guard judges, or null for what never goes to a network host (data:, blob:). */
export function hostOf(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return null;
  }
  if (!/^(https?|wss?):$/.test(url.protocol)) return null;
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

const ALLOWED: HostVerdict = { allowed: true };

const SECRET_CODES: ReadonlySet<RefusalCode> = new Set(['secret_in_url', 'secret_in_body']);

const secretRefusal = (name: string): HostVerdict => ({
  allowed: false,
  code: 'secret_in_url',
  reason: `its URL carried the value of the vault secret ${name}`,
});

const bodySecretRefusal = (name: string): HostVerdict => ({
  allowed: false,
  code: 'secret_in_body',
  reason: `its body carried the value of the vault secret ${name} to an origin other than the secret's`,
});

function originOf(raw: string): string {
  try {
    return new URL(raw).origin;
  } catch {
    return '(unreadable URL)';
  }
}

/** A held request whose approval was denied, timed out or never asked for (`wait: false`). */
const UNAPPROVED: HostVerdict = {
  allowed: false,
  code: 'approval_denied',
  reason: 'the owner did not approve it',
};

const UNJUDGED: HostVerdict = {
  allowed: false,
  code: 'private_url_blocked',
  reason: 'tabgate could not judge this address',
};

export class NetworkGuard {
  private readonly listeners = new Set<(refusal: Refusal) => void>();
  /** Set by the engine: what the running calls' approval gates hold. */
  holder: RequestHolder | undefined;

  private constructor(
    private readonly root: CdpSession,
    private readonly judge: HostJudge,
    private readonly frames?: FrameJudge,
    private readonly secrets?: UrlSecretJudge,
  ) {}

  /** Starts intercepting every request of the browser; resolves once Chromium confirmed it. */
  static async enable(
    root: CdpSession,
    judge: HostJudge,
    frames?: FrameJudge,
    secrets?: UrlSecretJudge,
  ): Promise<NetworkGuard> {
    const guard = new NetworkGuard(root, judge, frames, secrets);
    root.on<RequestPaused>('Fetch.requestPaused', (event) => guard.decide(event));
    await root.send('Fetch.enable', { patterns: [{ urlPattern: '*', requestStage: 'Request' }] });
    return guard;
  }

  onRefusal(listener: (refusal: Refusal) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * The verdict on a URL before the browser is sent there (`browser_navigate` answers it as an error);
   * `frameId` names the frame it would move, for the site grants.
   */
  async check(raw: string, frameId?: string): Promise<HostVerdict> {
    try {
      return await this.verdictOn(raw, 'Document', frameId);
    } catch {
      return UNJUDGED;
    }
  }

  /**
   * The host's verdict and, for a document, the frame judge's; sync when both are. A refusal either
   * gives at once wins without waiting for the other, so a frame moved to a site it was not granted is
   * refused before the host's DNS lookup (which can take seconds), while the click that moved it is
   * still settling.
   */
  private verdictOn(
    raw: string,
    resourceType: string,
    frameId: string | undefined,
    body?: string,
  ): HostVerdict | Promise<HostVerdict> {
    const host = hostOf(raw);
    if (host === null) return ALLOWED;
    const secret = this.secrets?.secretIn(raw);
    if (secret) return secretRefusal(secret);
    const inBody = body ? this.secrets?.secretInBody?.(raw, body) : null;
    if (inBody) return bodySecretRefusal(inBody);
    const byHost = this.judge.judge(host);
    const frames = this.frames;
    if (resourceType !== 'Document' || !frames) return byHost;
    if (!(byHost instanceof Promise) && !byHost.allowed) return byHost;
    const byFrame = frames.judgeFrame(raw, frameId);
    if (!(byFrame instanceof Promise) && !byFrame.allowed) return byFrame;
    if (!(byHost instanceof Promise) && !(byFrame instanceof Promise)) return ALLOWED;
    return Promise.all([byHost, byFrame]).then(([host, frame]) => (host.allowed ? frame : host));
  }

  private decide(event: RequestPaused): void {
    let verdict: HostVerdict | Promise<HostVerdict>;
    try {
      verdict = this.verdictOn(event.request.url, event.resourceType, event.frameId, bodyText(event.request));
    } catch {
      verdict = UNJUDGED;
    }
    if (verdict instanceof Promise) {
      verdict.then(
        (settled) => this.release(event, settled),
        () => this.release(event, UNJUDGED),
      );
    } else {
      this.release(event, verdict);
    }
  }

  /** The holder's hold on a request that may leave; once decided, a request is never held again. */
  private held(event: RequestPaused & { decided?: true }): Promise<boolean> | null {
    if (!this.holder || event.decided) return null;
    event.decided = true;
    try {
      return this.holder.hold({
        url: event.request.url,
        method: event.request.method ?? 'GET',
        frameId: event.frameId,
        resourceType: event.resourceType,
      });
    } catch {
      return Promise.resolve(false);
    }
  }

  private release(event: RequestPaused, verdict: HostVerdict): void {
    // A request the page abandoned meanwhile is gone from Chromium: its answer fails, harmlessly.
    if (verdict.allowed) {
      const held = this.held(event);
      if (held) {
        held.then(
          (go) => this.release(event, go ? ALLOWED : UNAPPROVED),
          () => this.release(event, UNAPPROVED),
        );
        return;
      }
      this.root.send('Fetch.continueRequest', { requestId: event.requestId }).catch(() => undefined);
      return;
    }
    const refusal: Refusal = {
      // A request that carried a secret is told by its origin alone: the notice, the log, never the value.
      url: SECRET_CODES.has(verdict.code) ? originOf(event.request.url) : event.request.url,
      frameId: event.frameId,
      resourceType: event.resourceType,
      code: verdict.code,
      reason: verdict.reason,
      ...(verdict.rule ? { rule: verdict.rule } : {}),
    };
    // Told before the request fails, so whoever waits on its navigation already knows why.
    for (const listener of [...this.listeners]) {
      try {
        listener(refusal);
      } catch {
        // A faulty listener must not let the request through.
      }
    }
    const errorReason = event.resourceType === 'Document' ? 'Aborted' : 'BlockedByClient';
    this.root.send('Fetch.failRequest', { requestId: event.requestId, errorReason }).catch(() => undefined);
  }
}
