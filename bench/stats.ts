/** The few measures the benchmarks share, each kept as the tables it feeds have always computed it. */

/** Nearest-rank quantile `q` (0–1) of sorted values; NaN when there are none. */
export const quantile = (sorted: readonly number[], q: number): number =>
  sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? NaN;

/** The value at `p` percent of the way through sorted values (index floor(n·p/100)); 0 when none. */
export const pct = (sorted: readonly number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

/** The median of unsorted values, as `pct(sorted, 50)` reads it. */
export const median = (values: readonly number[]): number =>
  pct(
    [...values].sort((x, y) => x - y),
    50,
  );

/**
 * Calls per second: `n` calls run by `concurrency` callers, each taking the next index when its last
 * call ends; any answer other than HTTP 200 fails the run.
 */
export async function throughput(
  call: (i: number) => Promise<number>,
  n: number,
  concurrency: number,
): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const status = await call(next++);
        if (status !== 200) throw new Error(`call answered ${status}`);
      }
    }),
  );
  return n / ((performance.now() - start) / 1000);
}
