/**
 * `npm run bench:cluster`: cluster mode against single-node mode and the floor, side by side in one run.
 * Real processes: a redis-server, one `tabgate serve` without --cluster, three `tabgate serve --cluster`
 * on that Redis, a bare relay as the floor; this process is both the agent and the controllers. Latency
 * calls are interleaved so load from anything else on the machine falls on all alike; Redis' own round
 * trip (node-redis PING, and redis-benchmark) is measured in the same run, since cluster budgets are
 * expressed in it. The three nodes share one SQLite file as their store; three more, on a Redis of
 * their own and a PostgreSQL (`--store`), the store a cluster runs on in production, are measured
 * beside them: a cluster node reads a call's session from the store on every call (another node may
 * have stopped or rebound it), and PostgreSQL's read is a round trip where SQLite's is a file read.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';
import { createClient } from 'redis';
import { cpuMsOf } from '../test/helpers/processes.js';
import { TestController, register } from '../test/gateway/fixtures/controller.js';
import type { TestGateway } from '../test/gateway/fixtures/gateway.js';
import { CLUSTER_CONFIG, startCluster, type ClusterNode } from '../test/cluster/fixtures/cluster-nodes.js';
import { startRedis, type TestRedis } from '../test/cluster/fixtures/redis-server.js';
import { startPostgres } from '../test/store/fixtures/postgres.js';
import type { NodeOrder, NodeStarted } from './cluster-node.js';
import { post } from './post.js';
import { pct, throughput } from './stats.js';
import { markdownTable } from './side-by-side.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const CALLS = Number(process.env.BENCH_CALLS ?? 2000);
const WARMUP = Number(process.env.BENCH_WARMUP ?? 500);
const THROUGHPUT_CALLS = Number(process.env.BENCH_THROUGHPUT_CALLS ?? 3000);
const IDLE = Number(process.env.BENCH_IDLE ?? 150);
const NODE_IDLE = Number(process.env.BENCH_NODE_IDLE ?? 900);
const CONCURRENCY = 32;
/** Another checkout's root (built, its node_modules in place): its cluster runs beside this one, as "before". */
const BEFORE = process.env.BENCH_BEFORE ?? '';
/** Also run the throughput passes pinned to one core, then two (`taskset`). */
const CORES = process.env.BENCH_CORES === '1';
const CORE_ROUNDS = Number(process.env.BENCH_CORE_ROUNDS ?? 2);
/** Throughput passes of each mode, alternated. */
const PASSES = Number(process.env.BENCH_PASSES ?? 3);
/**
 * Unmeasured throughput passes of each mode first. The latency rows never call through node A, and a
 * cluster node gets a third of the calls a single-node gateway gets, so without them the cluster's
 * passes measured its JIT warming up: three nodes, all calls on the socket's node, cost 0.58 ms of
 * CPU a call over 8,000 calls and 0.33 ms over 30,000.
 */
const WARM_PASSES = Number(process.env.BENCH_WARM_PASSES ?? 1);

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

/** CPU seconds (user + system) a process has used so far, from /proc (Linux clock ticks of 1/100 s). */
const cpuSeconds = (pid: number): number => cpuMsOf(pid) / 1000;

/** Pins a process and all its threads to the given cores (`taskset -a -p -c`). */
function pin(pid: number, cores: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' });
}

interface Pass {
  rate: number;
  /** CPU ms per call: each node's, summed, and Redis'. */
  nodeMsPerCall: number;
  redisMsPerCall: number;
  redisShare: number;
}

/** One throughput pass over a 3-node cluster, ⅔ of calls through a node that does not hold the socket. */
/** The pass of median rate. */
function median(passes: Pass[]): Pass {
  return [...passes].sort((x, y) => x.rate - y.rate)[Math.floor(passes.length / 2)]!;
}

async function clusterPass(nodes: ClusterNode[], sessions: string[], redis: TestRedis): Promise<Pass> {
  const pids = nodes.map((node) => node.child.pid ?? 0);
  const nodeBefore = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0);
  const redisBefore = redisCpu((...args) => redis.cli(...args));
  const started = performance.now();
  const rate = await throughput(
    (i) => {
      const node = nodes[Math.floor(i / 3) % 3]!.gw;
      return post(`${node.url}/v1/sessions/${sessions[i % 3]}/tools/browser_tabs`, {
        authorization: `Bearer ${node.key}`,
      });
    },
    THROUGHPUT_CALLS,
    CONCURRENCY,
  );
  const seconds = (performance.now() - started) / 1000;
  const redisUsed = redisCpu((...args) => redis.cli(...args)) - redisBefore;
  const nodeUsed = pids.reduce((sum, pid) => sum + cpuSeconds(pid), 0) - nodeBefore;
  return {
    rate,
    nodeMsPerCall: (nodeUsed * 1000) / THROUGHPUT_CALLS,
    redisMsPerCall: (redisUsed * 1000) / THROUGHPUT_CALLS,
    redisShare: redisUsed / seconds,
  };
}

async function singlePass(single: ClusterNode, sessions: string[]): Promise<Pass> {
  const pid = single.child.pid ?? 0;
  const before = cpuSeconds(pid);
  const rate = await throughput(
    (i) =>
      post(`${single.gw.url}/v1/sessions/${sessions[i % 3]}/tools/browser_tabs`, {
        authorization: `Bearer ${single.gw.key}`,
      }),
    THROUGHPUT_CALLS,
    CONCURRENCY,
  );
  return {
    rate,
    nodeMsPerCall: ((cpuSeconds(pid) - before) * 1000) / THROUGHPUT_CALLS,
    redisMsPerCall: 0,
    redisShare: 0,
  };
}

async function main(): Promise<void> {
  const redis = await startRedis();
  // Compiled, as a user runs it (`npm run bench:cluster` builds first): under tsx the per-call cost of
  // its loader hooks would be counted as the gateway's.
  const single = await startCluster('', 1, CLUSTER_CONFIG, undefined, 'built');
  const cluster = await startCluster(redis.url, 3, CLUSTER_CONFIG, undefined, 'built');
  // The "before" side: another checkout's source, on a Redis of its own, measured in the same run.
  const beforeRedis = BEFORE ? await startRedis() : undefined;
  const beforeCluster = beforeRedis
    ? await startCluster(beforeRedis.url, 3, CLUSTER_CONFIG, BEFORE, 'built')
    : undefined;
  const postgres = await startPostgres();
  const pgRedis = await startRedis();
  const pgCluster = await startCluster(
    pgRedis.url,
    3,
    { ...CLUSTER_CONFIG, store: { url: await postgres.createDatabase('bench') } },
    undefined,
    'built',
  );
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
    const [pa, pb, pc] = pgCluster.nodes.map((node) => node.gw) as [TestGateway, TestGateway, TestGateway];
    const pgSession = await connectRouted(pa, pb, pb);
    const callPgSame = () => post(`${pb.url}/v1/sessions/${pgSession}/tools/browser_tabs`, h(pb));
    const callPgCross = () => post(`${pc.url}/v1/sessions/${pgSession}/tools/browser_tabs`, h(pc));
    const calls = [callFloor, callSingle, callSame, callCross, callPing, callPgSame, callPgCross];
    if (beforeCluster) {
      const [x, y, z] = beforeCluster.nodes.map((node) => node.gw) as [TestGateway, TestGateway, TestGateway];
      const session = await connectRouted(x, y, y);
      calls.push(
        () => post(`${y.url}/v1/sessions/${session}/tools/browser_tabs`, h(y)),
        () => post(`${z.url}/v1/sessions/${session}/tools/browser_tabs`, h(z)),
      );
    }
    const [floor, singleMode, same, cross, rtt, pgSame, pgCross, sameBefore, crossBefore] = await interleaved(
      calls,
      CALLS,
    );
    await ping.quit();
    const f50 = pct(floor!, 50);
    const r50 = pct(rtt!, 50);
    const s50 = pct(singleMode!, 50);
    const row = (name: string, list: number[], note: string) =>
      rows.push([name, pct(list, 50).toFixed(3), pct(list, 99).toFixed(3), note]);
    const overFloor = (list: number[], goal: number) =>
      `floor + ${((pct(list, 50) - f50) / r50).toFixed(1)} Redis RTT (goal ≤ ${goal}); single-node + ${((pct(list, 50) - s50) / r50).toFixed(1)}`;
    row('floor (bare HTTP → ws relay)', floor!, '');
    row('Redis round trip (node-redis PING)', rtt!, '');
    row('single-node mode', singleMode!, `${(s50 / f50).toFixed(2)}× floor (goal ≤ 1.30×)`);
    row('cluster, caller on the socket’s node', same!, overFloor(same!, 2));
    row('cluster, cross-node', cross!, overFloor(cross!, 6));
    row('cluster on PostgreSQL, caller on the socket’s node', pgSame!, overFloor(pgSame!, 2));
    row('cluster on PostgreSQL, cross-node', pgCross!, overFloor(pgCross!, 6));
    if (sameBefore && crossBefore) {
      row('before: caller on the socket’s node', sameBefore, overFloor(sameBefore, 2));
      row('before: cross-node', crossBefore, overFloor(crossBefore, 6));
    }
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
    let beforeSessions: string[] = [];
    if (beforeCluster) {
      const [x, y, z] = beforeCluster.nodes.map((node) => node.gw) as [TestGateway, TestGateway, TestGateway];
      beforeSessions = [
        await connectRouted(x, y, y),
        await connectRouted(x, z, z),
        await connectRouted(y, x, x),
      ];
    }
    // Single-node and cluster passes alternate, so the host's other load falls on both alike; each
    // row is the median pass, and the ratio is of the medians.
    const passes = async (label: string) => {
      const ones: Pass[] = [];
      const threes: Pass[] = [];
      const olds: Pass[] = [];
      for (let pass = 0; pass < PASSES; pass++) {
        ones.push(await singlePass(single.nodes[0]!, singleSessions));
        threes.push(await clusterPass(cluster.nodes, clusterSessions, redis));
        if (beforeCluster && beforeRedis)
          olds.push(await clusterPass(beforeCluster.nodes, beforeSessions, beforeRedis));
      }
      const one = median(ones);
      const three = median(threes);
      const rates = (list: Pass[]) => list.map((p) => p.rate.toFixed(0)).join(', ');
      rows.push([
        `commands/s, single-node mode${label}`,
        one.rate.toFixed(0),
        '',
        `median of ${PASSES} (${rates(ones)}); 32 concurrent calls, 3 controllers; node CPU ${one.nodeMsPerCall.toFixed(2)} ms/call`,
      ]);
      rows.push([
        `commands/s, 3 cluster nodes, ⅔ cross-node${label}`,
        three.rate.toFixed(0),
        '',
        `${(three.rate / one.rate).toFixed(2)}× single-node (goal ≥ 0.5×), median of ${PASSES} (${rates(threes)}); nodes' CPU ${three.nodeMsPerCall.toFixed(2)} ms/call, Redis ${three.redisMsPerCall.toFixed(3)} ms/call (${(three.redisShare * 100).toFixed(0)}% of a core)`,
      ]);
      if (olds.length > 0) {
        const old = median(olds);
        rows.push([
          `before: commands/s, 3 cluster nodes${label}`,
          old.rate.toFixed(0),
          '',
          `${(old.rate / one.rate).toFixed(2)}× single-node, median of ${PASSES} (${rates(olds)}); nodes' CPU ${old.nodeMsPerCall.toFixed(2)} ms/call, Redis ${old.redisMsPerCall.toFixed(3)} ms/call`,
        ]);
      }
    };
    for (let pass = 0; pass < WARM_PASSES; pass++) {
      await singlePass(single.nodes[0]!, singleSessions);
      await clusterPass(cluster.nodes, clusterSessions, redis);
      if (beforeCluster && beforeRedis) await clusterPass(beforeCluster.nodes, beforeSessions, beforeRedis);
    }
    await passes('');
    if (CORES) {
      // What one more core buys: every process of the run (this load generator, Redis, every node)
      // pinned to one core, then to two, measured back to back.
      const pidOf = (server: TestRedis) => Number(/process_id:(\d+)/.exec(server.cli('INFO', 'server'))?.[1]);
      const pids = [
        process.pid,
        pidOf(redis),
        ...(beforeRedis ? [pidOf(beforeRedis)] : []),
        ...[...single.nodes, ...cluster.nodes, ...(beforeCluster?.nodes ?? [])].map(
          (node) => node.child.pid ?? 0,
        ),
      ];
      const all = os
        .cpus()
        .map((_, i) => i)
        .join(',');
      // Alternated, so the machine's other load falls on both alike.
      for (let round = 1; round <= CORE_ROUNDS; round++)
        for (const cores of ['0', '0,1']) {
          for (const pid of pids) pin(pid, cores);
          await passes(`, pinned to core${cores.length > 1 ? 's' : ''} ${cores} (round ${round})`);
        }
      for (const pid of pids) pin(pid, all);
    }

    // Memory per idle controller in Redis.
    const nodes = [a, b, c];
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
    if (NODE_IDLE > 0) rows.push(await nodeMemoryRow(false), await nodeMemoryRow(true));
  } finally {
    echo.close();
    floorChild.kill();
    await cluster.close();
    await pgCluster.close();
    await pgRedis.stop();
    await postgres.stop();
    await beforeCluster?.close();
    await single.close();
    await redis.stop();
    await beforeRedis?.stop();
  }
  console.log(
    `cluster benchmark — node ${process.version}, ${os.cpus().length} cores, ${CALLS} sequential calls each, interleaved`,
  );
  console.log(markdownTable(['measure', 'p50 ms / value', 'p99 ms', 'note'], rows));
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
