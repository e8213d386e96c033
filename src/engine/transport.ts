/**
 * The engine's only way to the browser: CDP commands and events over one connection with flattened
 * child sessions. A Node WebSocket to a browser endpoint implements it (local Chromium, a provider's CDP
 * URL), and so can `chrome.debugger` inside the extension, which also speaks flattened `sessionId`s.
 */
/**
 * How a CDP command failed, told apart once, where the failure is seen (the transport), so nothing
 * above matches error text: `closed`, the connection or the target is gone (a crashed or closed
 * browser, a detached debugger); `stale_context`, the execution context the command named is gone (its
 * document navigated away); `between_documents`, the page is changing the process its document lives
 * in (a cross-site navigation, an error page being committed) and refused the command without running
 * it; `protocol`, the browser refused the command itself (with its CDP code).
 */
export type CdpFailure = 'closed' | 'stale_context' | 'between_documents' | 'protocol';

export class CdpError extends Error {
  constructor(
    readonly failure: CdpFailure,
    /** The CDP method that failed. */
    readonly method: string,
    detail: string,
    /** The browser's JSON-RPC error code, for a `protocol` or `stale_context` failure. */
    readonly code?: number,
  ) {
    super(`CDP ${method}: ${detail}`);
    this.name = 'CdpError';
  }
}

// The browser's words for a gone context or target: CDP answers both with the generic -32000, so the
// message is all there is to tell them apart. Read here only, once per failed command.
const STALE_CONTEXT =
  /Cannot find context with specified id|Execution context was destroyed|Cannot find default execution context|Inspected target navigated or closed/i;
const TARGET_GONE = /Target closed|Session closed|No session with given id|No target with given id/i;
const BETWEEN_DOCUMENTS = /Not attached to an active page/i;

/** A CDP error response (`{code, message}`) as the CdpError it means. */
export function cdpErrorFromResponse(method: string, error: { code?: number; message?: string }): CdpError {
  const message = String(error.message ?? 'unknown error');
  if (STALE_CONTEXT.test(message)) return new CdpError('stale_context', method, message, error.code);
  if (TARGET_GONE.test(message)) return new CdpError('closed', method, message, error.code);
  if (BETWEEN_DOCUMENTS.test(message)) return new CdpError('between_documents', method, message, error.code);
  return new CdpError('protocol', method, message, error.code);
}

export const isCdpFailure = (error: unknown, failure: CdpFailure): error is CdpError =>
  error instanceof CdpError && error.failure === failure;

export type CdpEventListener = (params: unknown, sessionId: string | undefined) => void;

export interface CdpTransport {
  /** Sends one command; `sessionId` addresses an attached target, undefined the root session. */
  send(method: string, params?: object, sessionId?: string): Promise<unknown>;
  /** Subscribes to an event of any session; returns the unsubscribe function. */
  on(event: string, listener: CdpEventListener): () => void;
  /** Called once when the connection is gone (browser exited, socket closed, debugger detached). */
  onClose(listener: (reason: string) => void): () => void;
  readonly closed: boolean;
}

/**
 * The listener bookkeeping every transport needs, whatever carries its messages: a transport feeds it
 * the events it receives and, once, the reason it ended.
 */
export class CdpEventHub {
  private readonly listeners = new Map<string, Set<CdpEventListener>>();
  private readonly closeListeners = new Set<(reason: string) => void>();

  on(event: string, listener: CdpEventListener): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    set.add(listener);
    return () => set.delete(listener);
  }

  onClose(listener: (reason: string) => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  emit(method: string, params: unknown, sessionId: string | undefined): void {
    for (const listener of [...(this.listeners.get(method) ?? [])]) {
      try {
        listener(params ?? {}, sessionId);
      } catch {
        // One faulty listener must not stop the others or the transport.
      }
    }
  }

  closed(reason: string): void {
    for (const listener of [...this.closeListeners]) listener(reason);
  }
}

/** How long a page may stay between two documents before its command's refusal is the answer. */
export const BETWEEN_DOCUMENTS_MS = 2_000;
const BETWEEN_DOCUMENTS_RETRY_MS = 20;

/**
 * One CDP session (the root, a page, an out-of-process iframe) on a transport. Results are typed by the
 * caller: they come from the browser we drive, so the engine trusts their shape the way a CDP client does.
 */
export class CdpSession {
  constructor(
    readonly transport: CdpTransport,
    readonly id: string | undefined,
  ) {}

  /**
   * A command the page refused while between two documents never ran, and the page has a document
   * again within milliseconds (seen on a browser reached over a CDP URL, on the call right after an
   * error page was committed): it is sent again, for at most BETWEEN_DOCUMENTS_MS.
   */
  async send<T = unknown>(method: string, params?: object): Promise<T> {
    let giveUpAt: number | undefined;
    for (;;) {
      try {
        return (await this.transport.send(method, params, this.id)) as T;
      } catch (error) {
        if (!isCdpFailure(error, 'between_documents')) throw error;
        giveUpAt ??= performance.now() + BETWEEN_DOCUMENTS_MS;
        if (performance.now() >= giveUpAt) throw error;
        await new Promise((resolve) => setTimeout(resolve, BETWEEN_DOCUMENTS_RETRY_MS));
      }
    }
  }

  /** Listens to one event of this session only. */
  on<T = unknown>(event: string, listener: (params: T) => void): () => void {
    return this.transport.on(event, (params, sessionId) => {
      if (sessionId === this.id) listener(params as T);
    });
  }

  child(sessionId: string): CdpSession {
    return new CdpSession(this.transport, sessionId);
  }
}
