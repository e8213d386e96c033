/**
 * Dashboard tabs for bench/controller.ts, as far as the gateway can tell: open event streams
 * (`GET /v1/dashboard/events`), each read as fast as it comes. A process of its own, as a browser
 * would be: on a two-core host, reading the streams in the bench's own process would take CPU the
 * gateway needs, and charge the gateway's throughput with the cost of its readers. Driven over IPC.
 */
import http from 'node:http';
import { streamQuery, type StreamView } from '../src/dashboard/live-events.js';

/** `view`: what the tabs show, which says what their streams carry, as the page asks for it. */
export type ReaderOrder =
  | { kind: 'open'; url: string; key: string; tabs: number; view: StreamView }
  | { kind: 'close' }
  | { kind: 'exit' };

/** The answer to `open` (every tab has its first lines) and to `close` (the bytes all tabs read). */
export interface ReaderAnswer {
  bytes: number;
}

const QUIET_MS = 200;
let closing: AbortController | null = null;
let bytes = 0;

/**
 * Opens a stream; resolves once its first lines (the retry hint and the session lines) arrived. Read
 * with node:http, whose HTTP parser is native as a browser's is: fetch's (WebAssembly) cost this
 * process 2.6 µs per call per tab, CPU the gateway beside it on the same two cores then lacked.
 */
function openTab(url: string, key: string, view: StreamView, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.get(
      `${url}/v1/dashboard/events${streamQuery(view)}`,
      { headers: { authorization: `Bearer ${key}` }, signal },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`the dashboard stream answered ${response.statusCode}`));
          return;
        }
        response.once('data', () => resolve());
        response.on('data', (chunk: Buffer) => (bytes += chunk.length));
        response.on('error', () => undefined);
      },
    );
    request.on('error', reject);
  });
}

/** Resolves once no byte has arrived for QUIET_MS (nothing else is sent while no call runs). */
async function quiet(): Promise<void> {
  for (;;) {
    const before = bytes;
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS));
    if (bytes === before) return;
  }
}

process.on('message', (order: ReaderOrder) => {
  void (async () => {
    if (order.kind === 'exit') {
      closing?.abort();
      process.exit(0);
    }
    if (order.kind === 'open') {
      closing = new AbortController();
      const signal = closing.signal;
      await Promise.all(
        Array.from({ length: order.tabs }, () => openTab(order.url, order.key, order.view, signal)),
      );
      // What the pass is charged with starts once the lines every new tab gets (one per session: with
      // 1,000 sessions, more than one read) have all arrived: they are the opening's, not the calls'.
      await quiet();
      bytes = 0;
    } else {
      closing?.abort();
      closing = null;
    }
    process.send?.({ bytes } satisfies ReaderAnswer);
  })();
});
