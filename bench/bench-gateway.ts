/**
 * The gateway as the benchmarks' server processes start it (bench/controller-server.ts,
 * bench/cluster-node.ts): compiled to dist/ as users run it (each bench script builds first), one peer
 * registering every controller (so the per-credential registration limit is lifted for the run), the
 * owner's sessions opened in bulk, and memory read after GC.
 */
import v8 from 'node:v8';
import vm from 'node:vm';
import type { Logger } from '../src/log/logger.js';

const compiled: string = '../dist/gateway/server.js';
const { startGateway } = (await import(compiled)) as typeof import('../src/gateway/server.js');
type Gateway = Awaited<ReturnType<typeof startGateway>>;

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

const unlimited = { capacity: 1_000_000, refillPerSecond: 1_000_000 };
const owner = {
  principalId: 'owner',
  profileId: 'default',
  transportFamily: 'local-api',
  credential: 'api_key',
} as const;

export function startBenchGateway(home: string, log: Logger): Promise<Gateway> {
  return startGateway({ home, env: {}, flags: { port: 0 }, log, rateLimits: { register: unlimited } });
}

/** `count` sessions of the owner's, opened at once; their ids. */
export function openSessions(gateway: Gateway, count: number): Promise<string[]> {
  return Promise.all(
    Array.from(
      { length: count },
      async () => (await gateway.service.createSession(owner, { title: 'bench' })).session_id,
    ),
  );
}

/** This process's heap + external bytes and RSS, after two full GCs. */
export function memoryAfterGc(): { heap: number; rss: number } {
  gc();
  gc();
  const usage = process.memoryUsage();
  return { heap: usage.heapUsed + usage.external, rss: usage.rss };
}
