/**
 * `npm run bench:controller`: a tool call through HTTP → gateway → a Node controller → back, against
 * the floor (a bare node:http server relaying over a bare ws echo, same machine, same run); throughput
 * with 1, 100 and 1,000 connected controllers; memory per idle connected controller. Clients live in a
 * child process so the gateway's own memory is what gets measured.
 */
import { fork, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';
import vm from 'node:vm';
import { WebSocketServer, type WebSocket } from 'ws';
import { silentLogger } from '../src/gateway/logger.js';
import { startGateway } from '../src/gateway/server.js';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const here = path.dirname(fileURLToPath(import.meta.url));
const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const LATENCY_CALLS = Number(process.env.BENCH_CALLS ?? 3000);
const THROUGHPUT_CALLS = Number(process.env.BENCH_THROUGHPUT_CALLS ?? 6000);
const CONCURRENCY = 32;

function post(url: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, {
      method: 'POST',
      agent,
      headers: { 'content-type': 'application/json', ...headers },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function latencies(call: () => Promise<number>, n: number): Promise<number[]> {
  for (let i = 0; i < 200; i++) await call(); // warm-up: JIT, keep-alive sockets
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const start = performance.now();
    const status = await call();
    out.push(performance.now() - start);
    if (status !== 200) throw new Error(`call answered ${status}`);
  }
  return out.sort((a, b) => a - b);
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

async function throughput(call: (i: number) => Promise<number>, n: number): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < n) {
        const status = await call(next++);
        if (status !== 200) throw new Error(`call answered ${status}`);
      }
    }),
  );
  return n / ((performance.now() - start) / 1000);
}

function pool(): ChildProcess {
  return fork(path.join(here, 'controller-pool.ts'), [], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
}

function order(child: ChildProcess, message: unknown): Promise<void> {
  return new Promise((resolve) => {
    child.once('message', () => resolve());
    child.send(message as never);
  });
}

function stopPool(child: ChildProcess): void {
  child.send({ kind: 'exit' });
  child.disconnect();
}

/** The floor: the same HTTP → ws → HTTP hop with nothing in between. */
async function floor(): Promise<number[]> {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  await new Promise((resolve) => wss.once('listening', resolve));
  let peer: WebSocket | undefined;
  const waiting: (() => void)[] = [];
  wss.on('connection', (ws) => {
    peer = ws;
    ws.on('message', () => waiting.shift()?.());
  });
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      waiting.push(() => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"ok":true,"result":{"tabs":[]}}');
      });
      peer?.send(Buffer.concat(chunks).toString('utf8'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const child = pool();
  await order(child, { kind: 'echo', url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}` });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const result = await latencies(() => post(url, {}, '{}'), LATENCY_CALLS);
  stopPool(child);
  server.closeAllConnections();
  server.close();
  wss.close();
  return result;
}

async function main(): Promise<void> {
  const floorLatency = await floor();

  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tabgate-bench-'));
  fs.writeFileSync(path.join(home, 'config.yaml'), 'browser:\n  extension_control:\n    enabled: true\n');
  // One peer registers 1,000 controllers here: lift the per-peer registration limit for the run.
  const unlimited = { capacity: 1_000_000, refillPerSecond: 1_000_000 };
  const gateway = await startGateway({
    home,
    env: {},
    flags: { port: 0 },
    log: silentLogger,
    rateLimits: { register: unlimited },
  });
  const key = gateway.apiKey.key ?? '';
  const caller = {
    principalId: 'owner',
    profileId: 'default',
    transportFamily: 'local-api',
    credential: 'api_key',
  } as const;
  const sessions = Array.from(
    { length: 1000 },
    () => gateway.service.createSession(caller, { title: 'bench' }).session_id,
  );
  const headers = { authorization: `Bearer ${key}` };
  const callIn = (i: number) =>
    post(`${gateway.url}/v1/sessions/${sessions[i]}/tools/browser_tabs`, headers, '{}');

  const rows: string[][] = [];
  const child = pool();
  try {
    await order(child, { kind: 'controllers', url: gateway.url, key, sessions: sessions.slice(0, 1) });
    const gatewayLatency = await latencies(() => callIn(0), LATENCY_CALLS);
    const [f50, f99, g50, g99] = [
      pct(floorLatency, 50),
      pct(floorLatency, 99),
      pct(gatewayLatency, 50),
      pct(gatewayLatency, 99),
    ];
    rows.push([
      'round trip p50 (ms)',
      f50.toFixed(3),
      g50.toFixed(3),
      `${(g50 / f50).toFixed(2)}× floor (target ≤ 1.30×)`,
    ]);
    rows.push(['round trip p99 (ms)', f99.toFixed(3), g99.toFixed(3), `${(g99 / f99).toFixed(2)}× floor`]);

    rows.push([
      'commands/s, 1 controller',
      '',
      (await throughput(() => callIn(0), THROUGHPUT_CALLS)).toFixed(0),
      `${CONCURRENCY} concurrent calls`,
    ]);
    await order(child, { kind: 'controllers', url: gateway.url, key, sessions: sessions.slice(1, 100) });
    rows.push([
      'commands/s, 100 controllers',
      '',
      (await throughput((i) => callIn(i % 100), THROUGHPUT_CALLS)).toFixed(0),
      'calls spread over all',
    ]);

    gc();
    gc();
    const before = process.memoryUsage();
    await order(child, { kind: 'controllers', url: gateway.url, key, sessions: sessions.slice(100, 1000) });
    await new Promise((resolve) => setTimeout(resolve, 500));
    gc();
    gc();
    const after = process.memoryUsage();
    const perController = (after.heapUsed + after.external - before.heapUsed - before.external) / 900;
    rows.push([
      'commands/s, 1,000 controllers',
      '',
      (await throughput((i) => callIn(i % 1000), THROUGHPUT_CALLS)).toFixed(0),
      'calls spread over all',
    ]);
    rows.push([
      'memory per idle controller (KB)',
      '',
      (perController / 1024).toFixed(1),
      'heap+external delta / 900, after GC (target < 30)',
    ]);
    rows.push(['gateway RSS with 1,000 controllers (MB)', '', (after.rss / 1024 / 1024).toFixed(0), '']);
  } finally {
    stopPool(child);
    await gateway.close();
    agent.destroy();
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
  }

  const header = ['measure', 'floor', 'tabgate', 'note'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(
    `controller benchmark — node ${process.version}, ${os.cpus().length} cores, ${LATENCY_CALLS} sequential calls`,
  );
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const row of rows) console.log(line(row));
}

await main();
