/**
 * The engine's CDP transport over `chrome.debugger`, one per shared tab: the tab is the root session,
 * and out-of-process iframes arrive as flattened child sessions (`{tabId, sessionId}` debuggees), the
 * same shape a browser connection gives the engine. The chrome.debugger listeners are registered once,
 * at the worker's top level, and fan events out to the live transports by tab id.
 */
import {
  CdpError,
  CdpEventHub,
  cdpErrorFromResponse,
  type CdpEventListener,
  type CdpTransport,
} from '../../engine/transport.js';
import { chrome, type Debuggee } from '../chrome-api.js';

const live = new Map<number, DebuggerTransport>();

/**
 * Called synchronously at the worker's top level: a worker woken by an event gets it only if the listener
 * was added in the script's first synchronous run, so listeners come before any await.
 */
export function installDebuggerListeners(): void {
  chrome.debugger.onEvent.addListener((source, method, params) => {
    if (source.tabId !== undefined) live.get(source.tabId)?.emit(method, params, source.sessionId);
  });
  chrome.debugger.onDetach.addListener((source, reason) => {
    if (source.tabId !== undefined) live.get(source.tabId)?.markClosed(reason);
  });
}

const DEBUGGER_GONE = /not attached|Detached while handling command|No tab with given id|Target closed/i;

function parseProtocolError(message: string): { code?: number; message: string } | null {
  if (!message.startsWith('{')) return null;
  try {
    const value = JSON.parse(message) as { code?: unknown; message?: unknown };
    if (typeof value.message !== 'string') return null;
    return { code: typeof value.code === 'number' ? value.code : undefined, message: value.message };
  } catch {
    return null;
  }
}

export class DebuggerTransport implements CdpTransport {
  private readonly events = new CdpEventHub();
  closed = false;

  private constructor(readonly tabId: number) {}

  /** Attaches the debugger to the tab (the browser shows its "is debugging this browser" bar). */
  static async attach(tabId: number): Promise<DebuggerTransport> {
    const transport = new DebuggerTransport(tabId);
    try {
      await chrome.debugger.attach({ tabId }, '1.3');
    } catch (error) {
      const message = String((error as Error).message ?? error);
      if (!/already attached/i.test(message)) throw error;
      // A previous worker life left its attachment, with state this life does not know (auto-attach,
      // half-done navigations): start over clean rather than inherit it.
      await chrome.debugger.detach({ tabId }).catch(() => undefined);
      await chrome.debugger.attach({ tabId }, '1.3');
    }
    live.get(tabId)?.markClosed('replaced');
    live.set(tabId, transport);
    return transport;
  }

  async send(method: string, params?: object, sessionId?: string): Promise<unknown> {
    if (this.closed) throw new CdpError('closed', method, `debugger detached from tab ${this.tabId}`);
    const target: Debuggee = sessionId ? { tabId: this.tabId, sessionId } : { tabId: this.tabId };
    try {
      return await chrome.debugger.sendCommand(target, method, params ?? {});
    } catch (error) {
      throw this.failure(method, error);
    }
  }

  /**
   * What a refused `sendCommand` means, told once here: Chrome reports the browser's protocol error as
   * its JSON (`{"code":-32000,"message":…}`), and its own refusals (no longer attached, detached while
   * the command ran, the tab gone) in words.
   */
  private failure(method: string, error: unknown): CdpError {
    const message = String((error as Error | undefined)?.message ?? error);
    const response = parseProtocolError(message);
    if (response) return cdpErrorFromResponse(method, response);
    if (this.closed || DEBUGGER_GONE.test(message)) return new CdpError('closed', method, message);
    return new CdpError('protocol', method, message);
  }

  on(event: string, listener: CdpEventListener): () => void {
    return this.events.on(event, listener);
  }

  onClose(listener: (reason: string) => void): () => void {
    return this.events.onClose(listener);
  }

  emit(method: string, params: unknown, sessionId: string | undefined): void {
    this.events.emit(method, params, sessionId);
  }

  markClosed(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    if (live.get(this.tabId) === this) live.delete(this.tabId);
    this.events.closed(reason);
  }

  /** Detaches the debugger; never throws (the tab may be gone already). */
  async detach(): Promise<void> {
    this.markClosed('detached');
    await chrome.debugger.detach({ tabId: this.tabId }).catch(() => undefined);
  }
}
