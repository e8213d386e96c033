/**
 * One node (a cluster node when given a Redis URL, else a single-node gateway) in a process of its own, for bench/cluster.ts to measure its memory per idle
 * controller: heap+external after GC, asked over IPC before and after the controllers connect.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { createLogger } from '../src/log/logger.js';

// The gateway as users run it: compiled to dist/ (the bench:cluster script builds first).
const compiled: string = '../dist/gateway/server.js';
const { startGateway } = (await import(compiled)) as typeof import('../src/gateway/server.js');

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc') as () => void;

export type NodeOrder = { kind: 'memory' } | { kind: 'exit' };
export interface NodeStarted {
  url: string;
  key: string;
  sessions: string[];
}

const redisUrl = process.argv[2] ?? '';
const count = Number(process.argv[3] ?? 0);
const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tabgate-bench-node-'));
fs.writeFileSync(
  path.join(home, 'config.yaml'),
  'browser:\n  extension_control:\n    enabled: true\n' +
    (redisUrl ? `cluster:\n  redis_url: ${redisUrl}\n` : ''),
);
// One peer registers every controller here: lift the per-credential registration limit for the run.
const unlimited = { capacity: 1_000_000, refillPerSecond: 1_000_000 };
const gateway = await startGateway({
  home,
  env: {},
  flags: { port: 0 },
  log: createLogger({ write: () => {} }),
  rateLimits: { register: unlimited },
});
const caller = {
  principalId: 'owner',
  profileId: 'default',
  transportFamily: 'local-api',
  credential: 'api_key',
} as const;
const sessions = await Promise.all(
  Array.from(
    { length: count },
    async () => (await gateway.service.createSession(caller, { title: 'bench' })).session_id,
  ),
);

process.on('message', (order: NodeOrder) => {
  void (async () => {
    if (order.kind === 'memory') {
      gc();
      gc();
      const usage = process.memoryUsage();
      process.send?.({ heap: usage.heapUsed + usage.external });
    } else {
      await gateway.close();
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
      process.exit(0);
    }
  })();
});
const started: NodeStarted = { url: gateway.url, key: gateway.apiKey.key ?? '', sessions };
process.send?.(started);
