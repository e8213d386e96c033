/**
 * How CDP messages travel, apart from what they mean: a WebSocket to a DevTools endpoint (a CDP URL),
 * or the pipe pair of a Chromium we launched with `--remote-debugging-pipe` (NUL-separated JSON on
 * fds 3 and 4). The pipe is why a gateway killed with SIGKILL leaves no browser behind: Chromium exits
 * when its end of the pipe closes.
 */
import type { Readable, Writable } from 'node:stream';
import WebSocket from 'ws';

export interface CdpWire {
  send(text: string): Promise<void>;
  onMessage(listener: (text: string) => void): void;
  /** Called once, whatever ended the wire. */
  onClose(listener: (reason: string) => void): void;
  close(): void;
}

export async function openWebSocketWire(url: string, timeoutMs: number): Promise<CdpWire> {
  const socket = new WebSocket(url, {
    perMessageDeflate: false,
    maxPayload: 512 * 1024 * 1024,
    handshakeTimeout: timeoutMs,
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', (error) => reject(error));
  });
  return {
    send: (text) =>
      new Promise((resolve, reject) => socket.send(text, (error) => (error ? reject(error) : resolve()))),
    onMessage: (listener) => socket.on('message', (data: Buffer) => listener(data.toString('utf8'))),
    onClose: (listener) => {
      socket.once('close', () => listener('the browser connection closed'));
      socket.once('error', () => listener('the browser connection failed'));
    },
    close: () => socket.close(),
  };
}

export function pipeWire(toBrowser: Writable, fromBrowser: Readable): CdpWire {
  let buffered = '';
  const messageListeners: ((text: string) => void)[] = [];
  fromBrowser.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let end = buffered.indexOf('\0');
    while (end !== -1) {
      const message = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      for (const listener of messageListeners) listener(message);
      end = buffered.indexOf('\0');
    }
  });
  // The launcher paused the stream after its start probe; reading starts with this wire.
  fromBrowser.resume();
  // A write to a browser that just died must not become an uncaught stream error.
  toBrowser.on('error', () => undefined);
  return {
    send: (text) =>
      new Promise((resolve, reject) => {
        toBrowser.write(text + '\0', (error) => (error ? reject(error) : resolve()));
      }),
    onMessage: (listener) => void messageListeners.push(listener),
    onClose: (listener) => {
      fromBrowser.once('close', () => listener('the browser connection closed'));
      fromBrowser.once('error', () => listener('the browser connection failed'));
    },
    close: () => {
      toBrowser.end();
      fromBrowser.destroy();
    },
  };
}
