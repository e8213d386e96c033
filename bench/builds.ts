/**
 * `npm run bench:builds`: two builds of the gateway side by side, one call at a time, interleaved
 * with the order flipped every call, so a change's effect on the sequential p50 reads to 2–3 % on a
 * shared 2-core host (the A/A ratio: 0.975–0.997× in three runs), where two runs of bench:controller
 * differ by 5–10 %. Each side is a
 * `tabgate serve` of its tree's compiled CLI with browser control on, one protocol controller
 * (bench/controller-pool.ts, in a process of its own) and one session, called as bench:controller
 * calls it (`browser_tabs` over a kept-alive connection).
 *
 * `BENCH_BEFORE=<another checkout>` (built, its node_modules in place) runs that tree as "before"
 * beside this one as "after". Without it this tree runs on both sides: the printed ratio is then the
 * comparison's own noise.
 */
import { fork } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { CLUSTER_CONFIG, startCluster, type TestCluster } from '../test/cluster/fixtures/cluster-nodes.js';
import { closePosts, post } from './post.js';
import { interleavedLatencies, markdownTable, order } from './side-by-side.js';
import { pct } from './stats.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '..');
const BEFORE = process.env.BENCH_BEFORE ?? '';
const CALLS = Number(process.env.BENCH_CALLS ?? 5000);

interface Side {
  call: () => Promise<number>;
  close(): Promise<void>;
}

async function startSide(tree: string): Promise<Side> {
  const cluster: TestCluster = await startCluster('', 1, CLUSTER_CONFIG, tree, 'built');
  const gw = cluster.nodes[0]?.gw;
  if (!gw) throw new Error('the gateway did not start');
  const sessionId = await gw.createSession();
  const pool = fork(path.join(here, 'controller-pool.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: 'inherit',
  });
  await order(pool, { kind: 'controllers', url: gw.url, key: cluster.key, sessions: [sessionId] });
  const url = `${gw.url}/v1/sessions/${sessionId}/tools/browser_tabs`;
  const headers = { authorization: `Bearer ${cluster.key}` };
  return {
    call: () => post(url, headers),
    async close() {
      pool.send({ kind: 'exit' });
      pool.disconnect();
      await cluster.close();
    },
  };
}

async function main(): Promise<void> {
  const before = await startSide(BEFORE || ROOT);
  const after = await startSide(ROOT);
  let b: number[];
  let a: number[];
  try {
    [b, a] = await interleavedLatencies(before.call, after.call, CALLS);
  } finally {
    await Promise.all([before.close(), after.close()]);
    closePosts();
  }
  const rows = [50, 90, 99].map((p) => {
    const ratio = pct(a, p) / pct(b, p);
    return [`round trip p${p} (ms)`, pct(b, p).toFixed(3), pct(a, p).toFixed(3), `${ratio.toFixed(3)}×`];
  });
  console.log(
    `builds benchmark — node ${process.version}, ${os.cpus().length} cores, ${CALLS} sequential calls each, ` +
      (BEFORE ? `before: ${BEFORE}, after: this tree` : 'this tree on both sides (the comparison’s noise)'),
  );
  console.log(markdownTable(['measure', 'before', 'after', 'after / before'], rows));
}

await main();
