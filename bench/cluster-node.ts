/**
 * One node (a cluster node when given a Redis URL, else a single-node gateway) in a process of its own, for bench/cluster.ts to measure its memory per idle
 * controller: heap+external after GC, asked over IPC before and after the controllers connect.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '../src/log/logger.js';
import { memoryAfterGc, openSessions, startBenchGateway } from './bench-gateway.js';

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
const gateway = await startBenchGateway(home, createLogger({ write: () => {} }));
const sessions = await openSessions(gateway, count);

process.on('message', (order: NodeOrder) => {
  void (async () => {
    if (order.kind === 'memory') {
      process.send?.({ heap: memoryAfterGc().heap });
    } else {
      await gateway.close();
      fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
      process.exit(0);
    }
  })();
});
const started: NodeStarted = { url: gateway.url, key: gateway.apiKey.key ?? '', sessions };
process.send?.(started);
