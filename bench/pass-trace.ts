/**
 * `npm run bench:pass-trace`: the 1,000-controller pass of bench:controller by itself, with the gateway
 * process watched while it runs, to see where its CPU per call goes. Always prints calls/s, the
 * gateway's CPU µs per call and its read- and write-family syscalls per call (/proc/<pid>/io, free to
 * read). Switches, each a directory the output goes to:
 *
 * - `BENCH_STRACE=DIR`: `strace -c -f` on the gateway during the pass, every syscall counted (the
 *   pass runs several times slower under ptrace: only the counts mean anything then); with
 *   `BENCH_STRACE_FULL=1`, every syscall with its time and file instead (`strace -tt -y`);
 * - `BENCH_PERF=DIR`: `perf record -g` of the gateway during the pass (`perf report -i DIR/perf.data`);
 *   with `BENCH_NODE_FLAGS=--perf-prof` the JIT's code is named too (`perf.jit.data`, made with
 *   `perf inject --jit`; the gateway then runs from DIR, where Node writes its jit-<pid>.dump);
 * - `BENCH_NODE_FLAGS`: flags for the gateway's node (`--cpu-prof --cpu-prof-dir=DIR`,
 *   `--heap-prof --heap-prof-dir=DIR`, `--trace-gc`, `--perf-prof`);
 * - `BENCH_CONTROLLERS` (default 1,000) and `BENCH_CONCURRENCY` (default 32; 1 for the sequential calls
 *   a p50 is made of).
 */
import { fork, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cpuMsOf } from '../test/helpers/processes.js';
import type { ServerOrder, Started } from './controller-server.js';
import { closePosts, post } from './post.js';
import { throughput } from './stats.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const CALLS = Number(process.env.BENCH_THROUGHPUT_CALLS ?? 6000);
// BENCH_CONCURRENCY=1 watches the sequential calls bench:controller's p50 is made of.
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
// BENCH_CONTROLLERS=1 runs the same pass against one controller, to see what grows with their number.
const CONTROLLERS = Number(process.env.BENCH_CONTROLLERS ?? 1000);
const perfDir = process.env.BENCH_PERF;
const straceDir = process.env.BENCH_STRACE;
const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);

function message<T>(child: ChildProcess, order?: unknown): Promise<T> {
  return new Promise((resolve) => {
    child.once('message', (answer) => resolve(answer as T));
    if (order !== undefined) child.send(order as never);
  });
}

/** The gateway's CPU (user + system, µs) and syscalls so far, from /proc. */
function usage(pid: number): { cpu: number; syscalls: number; reads: number; writes: number } {
  const io = fs.readFileSync(`/proc/${pid}/io`, 'utf8');
  const count = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? NaN);
  const [reads, writes] = [count('syscr'), count('syscw')];
  return {
    cpu: cpuMsOf(pid) * 1000,
    syscalls: reads + writes,
    reads,
    writes,
  };
}

/** Starts a tracer attached to pid; resolves once it is attached, with a function that stops it. */
async function attach(command: string, args: string[]): Promise<() => Promise<void>> {
  const tracer = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  // Neither tool says when it is attached: give it a moment before the pass starts.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  return async () => {
    const exited = new Promise((resolve) => tracer.once('exit', resolve));
    tracer.kill('SIGINT');
    await exited;
  };
}

async function main(): Promise<void> {
  if (perfDir) fs.mkdirSync(perfDir, { recursive: true });
  if (straceDir) fs.mkdirSync(straceDir, { recursive: true });
  const server = fork(path.join(here, 'controller-server.ts'), [], {
    // tsx by its path: with --perf-prof the gateway runs in DIR, where the name alone resolves to nothing.
    execArgv: ['--import', import.meta.resolve('tsx'), ...nodeFlags],
    // With --perf-prof, Node writes its jit-<pid>.dump in its working directory.
    cwd: perfDir && nodeFlags.includes('--perf-prof') ? perfDir : process.cwd(),
    stdio: 'inherit',
  });
  await message(server);
  const started = await message<Started>(server, { kind: 'start' } satisfies ServerOrder);
  const pool = fork(path.join(here, 'controller-pool.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  const pid = server.pid ?? 0;
  const headers = { authorization: `Bearer ${started.key}` };
  const call = (i: number) =>
    post(
      `${started.gatewayUrl}/v1/sessions/${started.sessions[i % CONTROLLERS]}/tools/browser_tabs`,
      headers,
      '{}',
    );
  try {
    await message(pool, {
      kind: 'controllers',
      url: started.gatewayUrl,
      key: started.key,
      sessions: started.sessions.slice(0, CONTROLLERS),
    });
    // Warm-up, spread as the pass is: the gateway runs optimized code by the time it is watched.
    await throughput(call, CALLS, CONCURRENCY);
    const stops: (() => Promise<void>)[] = [];
    if (straceDir)
      stops.push(
        await attach('strace', [
          ...(process.env.BENCH_STRACE_FULL ? ['-tt', '-y'] : ['-c']),
          '-f',
          '-p',
          String(pid),
          '-o',
          path.join(straceDir, 'strace.txt'),
        ]),
      );
    if (perfDir) {
      const jit = nodeFlags.includes('--perf-prof') ? ['-k', 'mono'] : [];
      stops.push(
        await attach('perf', [
          'record',
          '-g',
          ...jit,
          '-p',
          String(pid),
          '-o',
          path.join(perfDir, 'perf.data'),
        ]),
      );
    }
    // Marks the watched pass in the gateway's own output (--trace-gc lines share this stdout).
    if (nodeFlags.length > 0) console.log('pass-trace: watched pass starts');
    const before = usage(pid);
    const rate = await throughput(call, CALLS, CONCURRENCY);
    const after = usage(pid);
    if (nodeFlags.length > 0) console.log('pass-trace: watched pass ends');
    for (const stop of stops) await stop();
    const per = (a: number, b: number) => ((b - a) / CALLS).toFixed(2);
    console.log(
      `pass-trace — ${CALLS} calls spread over ${CONTROLLERS} controllers, ${CONCURRENCY} concurrent`,
    );
    console.log(
      `commands/s                 ${rate.toFixed(0)}${stops.length > 0 ? ' (traced: not comparable)' : ''}`,
    );
    console.log(`gateway CPU per call (µs)  ${per(before.cpu, after.cpu)}`);
    console.log(`read syscalls per call     ${per(before.reads, after.reads)}`);
    console.log(`write syscalls per call    ${per(before.writes, after.writes)}`);
    if (straceDir)
      console.log(`strace -c: ${path.join(straceDir, 'strace.txt')} (divide its calls by ${CALLS})`);
  } finally {
    pool.send({ kind: 'exit' });
    pool.disconnect();
    await new Promise<void>((resolve) => {
      server.once('exit', () => resolve());
      server.send({ kind: 'exit' } satisfies ServerOrder);
    });
    closePosts();
  }
  if (perfDir && nodeFlags.includes('--perf-prof')) {
    spawnSync(
      'perf',
      ['inject', '--jit', '-i', path.join(perfDir, 'perf.data'), '-o', path.join(perfDir, 'perf.jit.data')],
      { cwd: perfDir, stdio: 'inherit' },
    );
  }
  if (perfDir) console.log(`perf: perf report -i ${path.join(perfDir, 'perf.data')}`);
}

await main();
