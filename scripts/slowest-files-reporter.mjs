// A node:test reporter that prints, once the run ends, the files that took longest (the sum of their
// top-level tests' durations). A file that outruns --test-timeout is cancelled with the cases it had
// left, so the runner prints this beside the spec reporter: a file creeping up on the limit shows here
// before it fails a run.
import path from 'node:path';

const SHOWN = 8;

/** The checkout's path of a test file (named by its source map when run from the compiled mirror). */
function checkoutPath(file) {
  return path.relative(process.cwd(), file.replace(/\.test-build\/run-\d+\//, '').replace(/\.js$/, '.ts'));
}

export default async function* slowestFiles(source) {
  const byFile = new Map();
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { nesting, file, name, details } = event.data;
    if (nesting !== 0 || !file) continue;
    // node names a test by the module that declared it: a suite declared in a shared module (the
    // conformance suite, run by several files) goes by its title, which names the file's part.
    const where = checkoutPath(file);
    const label = /\.test\.ts$/.test(where) ? where : `${name} (${where})`;
    byFile.set(label, (byFile.get(label) ?? 0) + (details?.duration_ms ?? 0));
  }
  const slowest = [...byFile].sort((a, b) => b[1] - a[1]).slice(0, SHOWN);
  if (slowest.length === 0) return;
  yield 'slowest test files (s):\n';
  for (const [label, ms] of slowest) yield `  ${(ms / 1000).toFixed(1).padStart(6)}  ${label}\n`;
}
