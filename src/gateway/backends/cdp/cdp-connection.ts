/**
 * The engine's transport to a browser: raw CDP with flattened sessions, no Playwright in between, over
 * a WebSocket (a CDP URL) or the launch pipe (our own Chromium), so every CDP backend shares one path.
 */
import type { Readable, Writable } from 'node:stream';
import {
  CdpError,
  CdpEventHub,
  cdpErrorFromResponse,
  type CdpEventListener,
  type CdpTransport,
} from '../../../engine/index.js';
import { openWebSocketWire, pipeWire, type CdpWire } from './cdp-wire.js';

interface Pending {
  resolve(value: unknown): void;
  reject(error: Error): void;
  method: string;
}

interface Message {
  id?: number;
  method?: string;
  params?: unknown;
  sessionId?: string;
  result?: unknown;
  error?: { code?: number; message: string; data?: string };
}

export class CdpConnection implements CdpTransport {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly events = new CdpEventHub();
  closed = false;

  private constructor(private readonly wire: CdpWire) {
    wire.onMessage((text) => this.receive(text));
    wire.onClose((reason) => this.shutdown(reason));
  }

  /** A browser's DevTools WebSocket endpoint (`ws://…/devtools/browser/…`). */
  static async connect(url: string, timeoutMs = 15_000): Promise<CdpConnection> {
    return new CdpConnection(await openWebSocketWire(url, timeoutMs));
  }

  /** The fds 3 (to the browser) and 4 (from it) of a Chromium run with `--remote-debugging-pipe`. */
  static overPipe(toBrowser: Writable, fromBrowser: Readable): CdpConnection {
    return new CdpConnection(pipeWire(toBrowser, fromBrowser));
  }

  send(method: string, params: object = {}, sessionId?: string): Promise<unknown> {
    if (this.closed)
      return Promise.reject(new CdpError('closed', method, 'the browser connection is closed'));
    const id = this.nextId++;
    const message = JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) });
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      // A write that fails (EPIPE from a dead browser, a socket gone) means the connection is lost:
      // every caller must see that, not a raw I/O error read as a bug.
      this.wire.send(message).catch(() => this.shutdown('the browser connection closed'));
    });
  }

  on(event: string, listener: CdpEventListener): () => void {
    return this.events.on(event, listener);
  }

  onClose(listener: (reason: string) => void): () => void {
    return this.events.onClose(listener);
  }

  close(): void {
    this.wire.close();
    this.shutdown('closed by tabgate');
  }

  private receive(text: string): void {
    let message: Message;
    try {
      message = JSON.parse(text) as Message;
    } catch {
      return;
    }
    if (message.id !== undefined) {
      const pending = this.pending.get(message.id);
      if (!pending) return;
      this.pending.delete(message.id);
      if (message.error) pending.reject(cdpErrorFromResponse(pending.method, message.error));
      else pending.resolve(message.result ?? {});
      return;
    }
    if (message.method) this.events.emit(message.method, message.params, message.sessionId);
  }

  private shutdown(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const pending of this.pending.values())
      pending.reject(new CdpError('closed', pending.method, reason));
    this.pending.clear();
    this.events.closed(reason);
  }
}
