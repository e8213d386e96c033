/**
 * `BENCH_PHASES=1`: where a sequential call's time goes inside the server process, the gateway's and the
 * floor's side by side. Four marks per call from `performance.now()`: request read (the body's `end`),
 * command sent (the server's `ws.send`), answer read (the socket's `message`), response written
 * (`res.end`), and the three spans between them. The marks come from wrapping node:http's and ws's
 * prototypes in this process only, so the gateway's code is measured as it ships, with nothing added to
 * it; each relay is told apart by the port the request or frame came in on. Marks are only kept while
 * one call at a time runs on each relay (the latency pass), so they are read once, after it.
 */
import http from 'node:http';
import { WebSocket } from 'ws';
import { pct } from './stats.js';

export const PHASES = [
  'request read → command sent',
  'command sent → answer read',
  'answer read → response written',
] as const;

/** Per relay, each phase's median in µs, in the order of PHASES. */
export type PhaseMedians = Record<string, number[]>;

interface Marks {
  read: number;
  sent: number;
  answered: number;
  spans: number[][];
}

function localPort(socket: unknown): number | undefined {
  return (socket as { localPort?: number } | null | undefined)?.localPort;
}

/** Runs `mark` first on every call of `proto[method]` in this process. */
function before<T extends object>(proto: T, method: string, mark: (self: T, args: unknown[]) => void): void {
  const original = Reflect.get(proto, method) as (this: T, ...args: unknown[]) => unknown;
  Reflect.set(proto, method, function (this: T, ...args: unknown[]) {
    mark(this, args);
    return original.apply(this, args);
  });
}

const wsSocket = (ws: WebSocket): unknown => (ws as unknown as { _socket: unknown })._socket;

/**
 * Starts marking calls on the relays named by port (a relay's HTTP and ws ports both map to its name).
 * `stop()` hands back each relay's medians and ends the marking.
 */
export function markCallPhases(relays: ReadonlyMap<number, string>): { stop(): PhaseMedians } {
  const marks = new Map<string, Marks>();
  for (const name of new Set(relays.values()))
    marks.set(name, { read: NaN, sent: NaN, answered: NaN, spans: PHASES.map(() => []) });
  const of = (socket: unknown) => {
    const port = localPort(socket);
    const name = port === undefined ? undefined : relays.get(port);
    return name === undefined ? undefined : marks.get(name);
  };
  let on = true;

  before(http.IncomingMessage.prototype, 'emit', (req, [event]) => {
    const m = on && event === 'end' ? of(req.socket) : undefined;
    if (m) m.read = performance.now();
  });
  before(WebSocket.prototype, 'send', (ws) => {
    const m = on ? of(wsSocket(ws)) : undefined;
    if (m) m.sent = performance.now();
  });
  before(WebSocket.prototype, 'emit', (ws, [event]) => {
    const m = on && event === 'message' ? of(wsSocket(ws)) : undefined;
    if (m) m.answered = performance.now();
  });
  before(http.ServerResponse.prototype, 'end', (res) => {
    const m = on ? of(res.socket) : undefined;
    if (!m) return;
    const now = performance.now();
    // A call whose marks are not in order (one that never reached the socket) is left out.
    if (m.read < m.sent && m.sent < m.answered) {
      m.spans[0]?.push(m.sent - m.read);
      m.spans[1]?.push(m.answered - m.sent);
      m.spans[2]?.push(now - m.answered);
    }
    m.read = m.sent = m.answered = NaN;
  });

  return {
    stop() {
      on = false;
      const medians: PhaseMedians = {};
      for (const [name, m] of marks)
        medians[name] = m.spans.map(
          (span) =>
            pct(
              span.sort((x, y) => x - y),
              50,
            ) * 1000,
        );
      return medians;
    },
  };
}
