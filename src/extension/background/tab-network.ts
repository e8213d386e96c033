/**
 * The network layer of one shared tab, through the extension's debugger: `Fetch` interception on the
 * tab's own session, which also pauses the requests of the dedicated workers its pages start, and on
 * the session of every out-of-process iframe, which the tab's does not see, added before the iframe
 * runs (nested ones too), so a request that must be held or failed cannot leave through them either.
 *
 * How much is intercepted follows what must be judged: nothing; the requests that can carry a body a
 * person must approve (while a call's approvals watch the tab); or every request (once a vault secret
 * was filled in the share, until it ends). The decision itself is the caller's. Whatever the level,
 * the response of every document request is paused too, so a response that would become a download is
 * taken here before Chrome writes anything to the person's disk (tab-downloads.ts).
 */
import { bodyText, type RequestBody } from '../../engine/secret-forms.js';
import type { CdpSession } from '../../engine/transport.js';

export type Interception = 'none' | 'with-body' | 'every';

export interface PausedRequest {
  url: string;
  method: string;
  resourceType: string;
  /** The frame the request belongs to; none for a worker's. */
  frameId: string | undefined;
  /** The body as text, when Chromium put it in the event. */
  body: string | undefined;
}

/** Let it go, or fail it with Chromium's network error. */
export type Decision = { go: true } | { go: false; errorReason: 'BlockedByClient' | 'Aborted' };

/** A document's response, paused before Chrome renders or saves it. */
export interface PausedResponse {
  /** The debugger session it was paused on: its body is read there. */
  session: CdpSession;
  requestId: string;
  url: string;
  status: number;
  headers: readonly { name: string; value: string }[];
  requestHeaders: Readonly<Record<string, string>>;
}

interface RequestPaused {
  requestId: string;
  request: { url: string; method?: string; headers?: Record<string, string> } & RequestBody;
  resourceType: string;
  frameId?: string;
  responseStatusCode?: number;
  responseErrorReason?: string;
  responseHeaders?: { name: string; value: string }[];
}

/** The resource types whose requests can carry a body the person must approve (action-gate.ts). */
const HELD_TYPES = ['Document', 'XHR', 'Fetch', 'Other', 'Ping', 'EventSource'];

/** A download is a document's response (a navigation, or `a[download]`, which Chrome fetches as one). */
const DOCUMENT_RESPONSES = { urlPattern: '*', resourceType: 'Document', requestStage: 'Response' };

function patternsOf(level: Interception): object[] {
  if (level === 'none') return [DOCUMENT_RESPONSES];
  if (level === 'every') return [{ urlPattern: '*', requestStage: 'Request' }, DOCUMENT_RESPONSES];
  return [
    ...HELD_TYPES.map((resourceType) => ({ urlPattern: '*', resourceType, requestStage: 'Request' })),
    DOCUMENT_RESPONSES,
  ];
}

const CONTINUE: Decision = { go: true };

export class TabNetwork {
  /** The tab's own session (key undefined) and its children, by session id, with their unsubscribes. */
  private readonly sessions = new Map<string | undefined, { session: CdpSession; off: () => void }>();
  private level: Interception = 'none';

  constructor(
    private readonly decide: (request: PausedRequest) => Promise<Decision>,
    /** A document's response: let it be rendered, or fail it (a download taken off the person's disk). */
    private readonly respond: (response: PausedResponse) => Promise<Decision> = () =>
      Promise.resolve(CONTINUE),
  ) {}

  /**
   * Adds the tab's session, or a child's before it runs, intercepted at the current level from its
   * first request. Throws when the tab's own session refuses (a child may be gone already).
   */
  async add(session: CdpSession): Promise<void> {
    if (this.sessions.has(session.id)) return;
    const offs = [
      session.on<RequestPaused>('Fetch.requestPaused', (event) => void this.paused(session, event)),
      session.on<{ sessionId: string }>('Target.detachedFromTarget', ({ sessionId }) =>
        this.remove(sessionId),
      ),
    ];
    this.sessions.set(session.id, { session, off: () => offs.forEach((off) => off()) });
    const applied = this.apply(session, this.level);
    await (session.id === undefined ? applied : applied.catch(() => undefined));
  }

  /** Intercepts every session of the tab at `level`; resolves once each has confirmed it. */
  async set(level: Interception): Promise<void> {
    if (level === this.level) return;
    this.level = level;
    await Promise.all(
      [...this.sessions.values()].map(({ session }) => {
        const applied = this.apply(session, level);
        return session.id === undefined ? applied : applied.catch(() => undefined);
      }),
    );
  }

  dispose(): void {
    for (const { off } of this.sessions.values()) off();
    this.sessions.clear();
  }

  private remove(sessionId: string): void {
    this.sessions.get(sessionId)?.off();
    this.sessions.delete(sessionId);
  }

  private async apply(session: CdpSession, level: Interception): Promise<void> {
    // New patterns let go of nothing held: a call waits for every hold before it ends.
    await session.send('Fetch.enable', { patterns: patternsOf(level) });
  }

  private async paused(session: CdpSession, event: RequestPaused): Promise<void> {
    if (event.responseStatusCode !== undefined || event.responseErrorReason !== undefined)
      return this.responded(session, event);
    let decision: Decision;
    try {
      decision = await this.decide({
        url: event.request.url,
        method: event.request.method ?? 'GET',
        resourceType: event.resourceType,
        frameId: event.frameId,
        body: bodyText(event.request),
      });
    } catch {
      decision = { go: false, errorReason: 'BlockedByClient' };
    }
    await answer(session, event.requestId, decision);
  }

  private async responded(session: CdpSession, event: RequestPaused): Promise<void> {
    let decision: Decision = CONTINUE;
    if (event.responseStatusCode !== undefined) {
      try {
        decision = await this.respond({
          session,
          requestId: event.requestId,
          url: event.request.url,
          status: event.responseStatusCode,
          headers: event.responseHeaders ?? [],
          requestHeaders: event.request.headers ?? {},
        });
      } catch {
        // A response that may be a download and could not be judged is not saved anywhere.
        decision = { go: false, errorReason: 'Aborted' };
      }
    }
    await answer(session, event.requestId, decision);
  }
}

/** Lets a paused request go on, or fails it with the decision's reason. */
async function answer(session: CdpSession, requestId: string, decision: Decision): Promise<void> {
  // A request the page abandoned meanwhile is gone from Chromium: its answer fails, harmlessly.
  await session
    .send(
      decision.go ? 'Fetch.continueRequest' : 'Fetch.failRequest',
      decision.go ? { requestId } : { requestId, errorReason: decision.errorReason },
    )
    .catch(() => undefined);
}
