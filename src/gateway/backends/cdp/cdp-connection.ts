/**
 * The engine's transport over a WebSocket to a browser's DevTools endpoint: raw CDP with flattened
 * sessions, no Playwright in between, so local Chromium and providers' CDP URLs share one code path.
 */
import WebSocket from 'ws';
import type { CdpEventListener, CdpTransport } from '../../../engine/index.js';

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
  error?: { message: string; data?: string };
}

export class CdpConnection implements CdpTransport {
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  private readonly listeners = new Map<string, Set<CdpEventListener>>();
  private readonly closeListeners = new Set<(reason: string) => void>();
  closed = false;

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => this.receive(data.toString('utf8')));
    socket.on('close', () => this.shutdown('the browser connection closed'));
    socket.on('error', () => this.shutdown('the browser connection failed'));
  }

  static async connect(url: string, timeoutMs = 15_000): Promise<CdpConnection> {
    const socket = new WebSocket(url, {
      perMessageDeflate: false,
      maxPayload: 512 * 1024 * 1024,
      handshakeTimeout: timeoutMs,
    });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', (error) => reject(error));
    });
    return new CdpConnection(socket);
  }

  send(method: string, params: object = {}, sessionId?: string): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error(`CDP ${method}: the browser connection is closed`));
    const id = this.nextId++;
    const message = JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) });
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, method });
      this.socket.send(message, (error) => {
        if (!error) return;
        this.pending.delete(id);
        reject(error);
      });
    });
  }

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

  close(): void {
    this.socket.close();
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
      if (message.error) pending.reject(new Error(`CDP ${pending.method}: ${message.error.message}`));
      else pending.resolve(message.result ?? {});
      return;
    }
    if (!message.method) return;
    for (const listener of [...(this.listeners.get(message.method) ?? [])]) {
      try {
        listener(message.params ?? {}, message.sessionId);
      } catch {
        // One faulty listener must not stop the others or the socket.
      }
    }
  }

  private shutdown(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    for (const pending of this.pending.values())
      pending.reject(new Error(`CDP ${pending.method}: ${reason}`));
    this.pending.clear();
    for (const listener of this.closeListeners) listener(reason);
  }
}
