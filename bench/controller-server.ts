/**
 * The server side of bench/controller.ts, in a process of its own as in real use (agents and browsers
 * never share the gateway's event loop): the floor (a bare node:http server relaying over a bare ws
 * echo), the same relay carrying protocol frames to a protocol controller (what the wire protocol costs
 * by itself) and the real gateway, side by side, with memory measured here. Driven over IPC.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { createLogger } from '../src/log/logger.js';
import { encodeFrame, FRAME_METHODS } from '../src/protocol/index.js';
import { memoryAfterGc, openSessions, startBenchGateway } from './bench-gateway.js';
import { markCallPhases, type PhaseMedians } from './call-phases.js';

export type ServerOrder = { kind: 'start' } | { kind: 'memory' } | { kind: 'phases' } | { kind: 'exit' };

/** The answer to `phases`: null unless BENCH_PHASES=1. */
export type PhasesAnswer = { medians: PhaseMedians | null };

export interface Started {
  floorUrl: string;
  floorWsUrl: string;
  /** The floor spread over many ws peers: `POST <url><i>` goes through peer i (mod their number). */
  spreadFloorUrl: string;
  spreadFloorWsUrl: string;
  framesUrl: string;
  framesWsUrl: string;
  gatewayUrl: string;
  key: string;
  /** For the dashboard's event streams, which only the operator opens. */
  operatorKey: string;
  sessions: string[];
}

interface Relay {
  url: string;
  wsUrl: string;
  close(): void;
}

/** A listening ws server with nothing attached yet. */
async function wsServer(): Promise<WebSocketServer> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await new Promise((resolve) => wss.once('listening', resolve));
  return wss;
}

/** An HTTP server in front of `wss`, handing each request's body (and path) to `onRequest`. */
async function httpInFront(
  wss: WebSocketServer,
  onRequest: (body: string, url: string, res: http.ServerResponse) => void,
): Promise<Relay> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => onRequest(Buffer.concat(chunks).toString('utf8'), req.url ?? '/', res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    wsUrl: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    close() {
      server.closeAllConnections();
      server.close();
      wss.close();
    },
  };
}

/** An HTTP server handing each request's body to `relay`, with the one ws peer that connects. */
async function startRelay(
  relay: (body: string, peer: WebSocket, res: http.ServerResponse) => void,
  onMessage: (data: Buffer) => void,
): Promise<Relay> {
  const wss = await wsServer();
  let peer: WebSocket | undefined;
  wss.on('connection', (ws) => {
    peer = ws;
    ws.on('message', (data) => onMessage(data as Buffer));
  });
  return httpInFront(wss, (body, _url, res) => {
    if (peer) relay(body, peer, res);
  });
}

function answer(res: http.ServerResponse, body: string): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
}

/** The floor: the body goes out over ws as it is, and its echo answers the request. */
function startFloor(): Promise<Relay> {
  const waiting: (() => void)[] = [];
  return startRelay(
    (body, peer, res) => {
      waiting.push(() => answer(res, '{"ok":true,"result":{"tabs":[]}}'));
      peer.send(body);
    },
    () => waiting.shift()?.(),
  );
}

/**
 * The floor spread over every ws peer that connects (1,000 in the bench, one per controller as the
 * gateway has them): the request's path picks the peer, and each peer's echoes answer its own requests
 * in order. What spreading calls over that many sockets costs by itself, with nothing of the gateway's.
 */
async function startSpreadFloor(): Promise<Relay> {
  const wss = await wsServer();
  const peers: { ws: WebSocket; waiting: (() => void)[] }[] = [];
  wss.on('connection', (ws) => {
    const peer = { ws, waiting: [] as (() => void)[] };
    peers.push(peer);
    ws.on('message', () => peer.waiting.shift()?.());
  });
  return httpInFront(wss, (body, url, res) => {
    const peer = peers[Number(url.slice(1)) % peers.length];
    if (!peer) return;
    peer.waiting.push(() => answer(res, '{"ok":true,"result":{"tabs":[]}}'));
    peer.ws.send(body);
  });
}

/**
 * The floor carrying protocol frames: the body becomes a command frame as the gateway would send it, a
 * protocol controller answers with a result frame, and the result goes back as `{ok, result}`. Nothing
 * of the gateway's own (auth, sessions, routing, audit) is done.
 */
function startFramesRelay(): Promise<Relay> {
  const waiting = new Map<string, http.ServerResponse>();
  let sent = 0;
  return startRelay(
    (body, peer, res) => {
      const commandId = (++sent).toString(16).padStart(32, '0');
      waiting.set(commandId, res);
      peer.send(
        encodeFrame({
          method: FRAME_METHODS.command,
          params: {
            command_id: commandId,
            action: 'browser_tabs',
            arguments: JSON.parse(body) as Record<string, unknown>,
            controller_id: 'bench-0',
            browser_profile_id: 'bench',
            tool_call_id: null,
            deadline_at: Date.now() + 30_000,
          },
        }),
      );
    },
    (data) => {
      const { params } = JSON.parse(data.toString('utf8')) as {
        params: { command_id: string; result: unknown };
      };
      const res = waiting.get(params.command_id);
      waiting.delete(params.command_id);
      if (res) answer(res, JSON.stringify({ ok: true, result: params.result }));
    },
  );
}

const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tabgate-bench-'));
fs.writeFileSync(path.join(home, 'config.yaml'), 'browser:\n  extension_control:\n    enabled: true\n');
// The gateway logs as `tabgate serve 2>>file` does: one line per request, those of a turn in one write.
// Outside its home folder, as docs/gateway.md advises: the gateway watches that folder (config.yaml, the
// vault), and a log there woke it at every write (17–19 µs of CPU per call with 1,000 controllers).
const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tabgate-bench-log-'));
const logFd = fs.openSync(path.join(logDir, 'gateway.log'), 'a');
const floor = await startFloor();
const spreadFloor = await startSpreadFloor();
const frames = await startFramesRelay();
const gateway = await startBenchGateway(home, createLogger({ output: (text) => fs.writeSync(logFd, text) }));
const portOf = (url: string) => Number(new URL(url).port);
const phases =
  process.env.BENCH_PHASES === '1'
    ? markCallPhases(
        new Map([
          [portOf(floor.url), 'floor'],
          [portOf(floor.wsUrl), 'floor'],
          [portOf(gateway.url), 'tabgate'],
        ]),
      )
    : null;

process.on('message', (order: ServerOrder) => {
  void (async () => {
    if (order.kind === 'start') {
      const sessions = await openSessions(gateway, 1000);
      const started: Started = {
        floorUrl: floor.url,
        floorWsUrl: floor.wsUrl,
        spreadFloorUrl: spreadFloor.url,
        spreadFloorWsUrl: spreadFloor.wsUrl,
        framesUrl: frames.url,
        framesWsUrl: frames.wsUrl,
        gatewayUrl: gateway.url,
        key: gateway.apiKey.key ?? '',
        operatorKey: gateway.operatorKey,
        sessions,
      };
      process.send?.(started);
    } else if (order.kind === 'phases') {
      process.send?.({ medians: phases?.stop() ?? null } satisfies PhasesAnswer);
    } else if (order.kind === 'memory') {
      process.send?.(memoryAfterGc());
    } else {
      floor.close();
      spreadFloor.close();
      frames.close();
      await gateway.close();
      fs.closeSync(logFd);
      fs.rmSync(logDir, { recursive: true, force: true });
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
      process.exit(0);
    }
  })();
});
process.send?.({ ready: true });
