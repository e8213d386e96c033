/**
 * What the benchmarks that compare two things side by side share: the interleaved latency pass, an
 * order to a child process answered once, and the markdown table each prints.
 */
import type { ChildProcess } from 'node:child_process';

/** Sends `message` to a child process; resolves at its next message (its answer). */
export function order(child: ChildProcess, message: unknown): Promise<void> {
  return new Promise((resolve) => {
    child.once('message', () => resolve());
    child.send(message as never);
  });
}

/**
 * Latencies of two calls measured side by side: alternating, with the order flipped every round, so
 * load from anything else on the machine falls on both alike. `BENCH_WARMUP` pairs run first (default
 * 3,000), since a gateway in use runs optimized code. Each list comes back sorted; any answer other
 * than HTTP 200 fails the run.
 */
export async function interleavedLatencies(
  a: () => Promise<number>,
  b: () => Promise<number>,
  n: number,
): Promise<[number[], number[]]> {
  for (let i = 0; i < Number(process.env.BENCH_WARMUP ?? 3000); i++) await Promise.all([a(), b()]);
  const outA: number[] = [];
  const outB: number[] = [];
  const time = async (call: () => Promise<number>, out: number[]) => {
    const start = performance.now();
    const status = await call();
    out.push(performance.now() - start);
    if (status !== 200) throw new Error(`call answered ${status}`);
  };
  for (let i = 0; i < n; i++) {
    if (i % 2 === 0) {
      await time(a, outA);
      await time(b, outB);
    } else {
      await time(b, outB);
      await time(a, outA);
    }
  }
  return [outA.sort((x, y) => x - y), outB.sort((x, y) => x - y)];
}

/** A markdown table, each column as wide as its widest cell. */
export function markdownTable(header: readonly string[], rows: readonly string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...rows.map(line)].join('\n');
}
