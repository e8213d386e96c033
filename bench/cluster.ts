/**
 * `npm run bench:cluster`: cluster mode against single-node mode and the floor, side by side in one run.
 * Real processes: a redis-server, one `tabgate serve` without --cluster, three `tabgate serve --cluster`
 * on that Redis, a bare relay as the floor; this process is both the agent and the controllers. Latency
 * calls are interleaved so load from anything else on the machine falls on all alike; Redis' own round
 * trip (node-redis PING, and redis-benchmark) is measured in the same run, since cluster budgets are
 * expressed in it.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { createClient } from 'redis';
import { TestController, register } from '../test/gateway/fixtures/controller.js';
import type { TestGateway } from '../test/gateway/fixtures/gateway.js';
import { startCluster } from '../test/cluster/fixtures/cluster-nodes.js';
import { startRedis } from '../test/cluster/fixtures/redis-server.js';
import type { NodeOrder, NodeStarted } from './cluster-node.js';
import { post } from './post.js';
import { pct, throughput } from './stats.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
const THROUGHPUT_CALLS = Number(process.env.BENCH_THROUGHPUT_CALLS ?? 3000);
const IDLE = Number(process.env.BENCH_IDLE ?? 150);
const NODE_IDLE = Number(process.env.BENCH_NODE_IDLE ?? 900);
const CONCURRENCY = 32;

/** A controller that answers every command at once. */
function answering(controller: TestController): void {
  controller.ws.on('message', (data) => {
    const frame = JSON.parse((data as Buffer).toString('utf8')) as {
      method: string;
      params: { command_id: string };
    };
    if (frame.method === 'browser.controller.command')
      controller.result(frame.params.command_id, true, { tabs: [] });
  });
}

async function interleaved(calls: (() => Promise<number>)[], n: number): Promise<number[][]> {
  for (let i = 0; i < WARMUP; i++) for (const call of calls) await call();
  const out = calls.map(() => [] as number[]);
  for (let i = 0; i < n; i++) {
    const order = calls.map((_, k) => (k + i) % calls.length);
    for (const k of order) {
      const start = performance.now();
      const status = await calls[k]!();
      out[k]!.push(performance.now() - start);
      if (status !== 200) throw new Error(`call answered ${status}`);
    }
  }
  return out.map((list) => list.sort((a, b) => a - b));
}

async function connectRouted(
  register_: TestGateway,
  socketOn: TestGateway,
  callOn: TestGateway,
): Promise<string> {
  const sessionId = await register_.createSession();
  const controller = await TestController.open(socketOn, await register(register_, { sessionId }));
  answering(controller);
  const url = `${callOn.url}/v1/sessions/${sessionId}/tools/browser_tabs`;
  for (let i = 0; i < 200; i++) {
    if ((await post(url, { authorization: `Bearer ${callOn.key}` })) === 200) return sessionId;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('controller never became routable');
}

function redisCpu(cli: (...args: string[]) => string): number {
  const info = cli('INFO', 'cpu');
  const get = (name: string) => Number(new RegExp(`${name}:([\\d.]+)`).exec(info)?.[1] ?? 0);
  return get('used_cpu_sys') + get('used_cpu_user');
}

function ask<T>(child: ChildProcess, message: NodeOrder): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (answer) => resolve(answer as T));
    child.send(message);
  });
}

/**
 * Node memory per idle controller: a node of its own (own process and, in cluster mode, own Redis, so
 * nothing else shares its heap), heap+external after GC before and after NODE_IDLE controllers connect.
 */
async function nodeMemoryRow(cluster: boolean): Promise<string[]> {
  const redis = cluster ? await startRedis() : undefined;
  const child = fork(path.join(here, 'cluster-node.ts'), [redis?.url ?? '', String(NODE_IDLE)], {
    execArgv: ['--import', 'tsx'],
  });
  const controllers: TestController[] = [];
  try {
    const started = await new Promise<NodeStarted>((resolve) =>
      child.once('message', (m) => resolve(m as NodeStarted)),
    );
    const gw = {
      url: started.url.replace(/\/$/, ''),
      request: async (method: string, pathname: string, init: { body?: unknown } = {}) => {
        const response = await fetch(started.url.replace(/\/$/, '') + pathname, {
          method,
          headers: { authorization: `Bearer ${started.key}`, 'content-type': 'application/json' },
          body: JSON.stringify(init.body),
        });
        return { status: response.status, body: (await response.json()) as unknown };
      },
    } as unknown as TestGateway;
    // Warm the paths once (first register, first upgrade) so lazy module state is not counted.
    controllers.push(await TestController.open(gw, await register(gw, { sessionId: started.sessions[0]! })));
    const before = await ask<{ heap: number }>(child, { kind: 'memory' });
    for (const sessionId of started.sessions.slice(1))
      controllers.push(await TestController.open(gw, await register(gw, { sessionId })));
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = await ask<{ heap: number }>(child, { kind: 'memory' });
    const perController = (after.heap - before.heap) / (started.sessions.length - 1);
    return [
      `node memory per idle controller (KB), ${cluster ? 'cluster node' : 'single-node mode'}`,
      (perController / 1024).toFixed(1),
      '',
      `heap+external delta / ${started.sessions.length - 1}, after GC (goal ≤ 30)`,
    ];
  } finally {
    for (const controller of controllers) controller.ws.terminate();
    child.send({ kind: 'exit' });
    await new Promise((resolve) => child.once('exit', resolve));
    await redis?.stop();
  }
}

async function main(): Promise<void> {
  const redis = await startRedis();
  const single = await startCluster('', 1);
  const cluster = await startCluster(redis.url, 3);
  const floorChild = fork(path.join(here, 'cluster-floor.ts'), [], { execArgv: ['--import', 'tsx'] });
  const floorUrl = await new Promise<string>((resolve) =>
    floorChild.once('message', (m) => resolve((m as { url: string }).url)),
  );
  const echo = new WebSocket(floorUrl.replace('http', 'ws'));
  await new Promise((resolve) => echo.once('open', resolve));
  echo.on('message', (data) => echo.send(data));
  const rows: string[][] = [];
  try {
    const s = single.nodes[0]!.gw;
    const [a, b, c] = cluster.nodes.map((node) => node.gw) as [TestGateway, TestGateway, TestGateway];
    const singleSession = await connectRouted(s, s, s);
    const sameSession = await connectRouted(a, b, b);
    const h = (gw: TestGateway) => ({ authorization: `Bearer ${gw.key}` });
    const callSingle = () => post(`${s.url}/v1/sessions/${singleSession}/tools/browser_tabs`, h(s));
    const callSame = () => post(`${b.url}/v1/sessions/${sameSession}/tools/browser_tabs`, h(b));
    const callCross = () => post(`${c.url}/v1/sessions/${sameSession}/tools/browser_tabs`, h(c));
    const callFloor = () => post(floorUrl, {});
    const ping = createClient({ url: redis.url, RESP: 2 });
    await ping.connect();
    const callPing = async () => {
      await ping.sendCommand(['PING']);
      return 200;
    };
    const [floor, singleMode, same, cross, rtt] = await interleaved(
      [callFloor, callSingle, callSame, callCross, callPing],
      CALLS,
    );
    await ping.quit();
    const f50 = pct(floor!, 50);
    const r50 = pct(rtt!, 50);
    const row = (name: string, list: number[], note: string) =>
      rows.push([name, pct(list, 50).toFixed(3), pct(list, 99).toFixed(3), note]);
    row('floor (bare HTTP → ws relay)', floor!, '');
    row('Redis round trip (node-redis PING)', rtt!, '');
    row('single-node mode', singleMode!, `${(pct(singleMode!, 50) / f50).toFixed(2)}× floor (goal ≤ 1.30×)`);
    row(
      'cluster, caller on the socket’s node',
      same!,
      `floor + ${((pct(same!, 50) - f50) / r50).toFixed(1)} Redis RTT (goal ≤ 2)`,
    );
    row(
      'cluster, cross-node',
      cross!,
      `floor + ${((pct(cross!, 50) - f50) / r50).toFixed(1)} Redis RTT (goal ≤ 6)`,
    );
    const bench = execFileSync(
      'redis-benchmark',
      ['-p', String(redis.port), '-c', '1', '-n', '20000', '-t', 'ping', '--csv'],
      {
        encoding: 'utf8',
      },
    );
    // CSV: "test","rps","avg_latency_ms","min_latency_ms","p50_latency_ms","p95_latency_ms","p99_latency_ms",…
    const mbulk = bench
      .split('\n')
      .find((l) => l.startsWith('"PING_MBULK"'))
      ?.split(',')
      .map((cell) => cell.replace(/"/g, ''));
    rows.push([
      'redis-benchmark -c 1 PING (C client)',
      mbulk?.[4] ?? '?',
      mbulk?.[6] ?? '?',
      `${mbulk?.[1] ?? '?'} requests/s`,
    ]);

    // Throughput: 3 controllers per mode; in the cluster one per node, calls spread so ⅔ cross nodes.
    const singleSessions = [singleSession, await connectRouted(s, s, s), await connectRouted(s, s, s)];
    const clusterSessions = [sameSession, await connectRouted(a, c, c), await connectRouted(b, a, a)];
    const nodes = [a, b, c];
    const singleRate = await throughput(
      (i) => post(`${s.url}/v1/sessions/${singleSessions[i % 3]}/tools/browser_tabs`, h(s)),
      THROUGHPUT_CALLS,
      CONCURRENCY,
    );
    const cpuBefore = redisCpu((...args) => redis.cli(...args));
    const started = performance.now();
    const clusterRate = await throughput(
      (i) => {
        const node = nodes[Math.floor(i / 3) % 3]!;
        return post(`${node.url}/v1/sessions/${clusterSessions[i % 3]}/tools/browser_tabs`, h(node));
      },
      THROUGHPUT_CALLS,
      CONCURRENCY,
    );
    const redisShare =
      (redisCpu((...args) => redis.cli(...args)) - cpuBefore) / ((performance.now() - started) / 1000);
    rows.push([
      'commands/s, single-node mode',
      singleRate.toFixed(0),
      '',
      '32 concurrent calls, 3 controllers',
    ]);
    rows.push([
      'commands/s, 3 cluster nodes, ⅔ cross-node',
      clusterRate.toFixed(0),
      '',
      `${(clusterRate / singleRate).toFixed(2)}× single-node (goal ≥ 0.5×); Redis CPU ${(redisShare * 100).toFixed(0)}% of a core`,
    ]);

    // Memory per idle controller in Redis.
    const usedMemory = () => Number(/used_memory:(\d+)/.exec(redis.cli('INFO', 'memory'))?.[1] ?? 0);
    const before = usedMemory();
    const idle: TestController[] = [];
    for (let i = 0; i < IDLE; i++) {
      const node = nodes[i % 3]!;
      const sessionId = await node.createSession();
      idle.push(await TestController.open(nodes[(i + 1) % 3]!, await register(node, { sessionId })));
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
    const perController = (usedMemory() - before) / IDLE;
    rows.push([
      'Redis memory per idle controller (bytes)',
      perController.toFixed(0),
      '',
      `${IDLE} controllers (goal ≤ 2048)`,
    ]);
    for (const controller of idle) await controller.close();
    rows.push(await nodeMemoryRow(false), await nodeMemoryRow(true));
  } finally {
    echo.close();
    floorChild.kill();
    await cluster.close();
    await single.close();
    await redis.stop();
  }
  const header = ['measure', 'p50 ms / value', 'p99 ms', 'note'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(
    `cluster benchmark — node ${process.version}, ${os.cpus().length} cores, ${CALLS} sequential calls each, interleaved`,
  );
  console.log([line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n'));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
