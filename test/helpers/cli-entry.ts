/**
 * How a test starts the `tabgate` CLI in a child process: `node` arguments that run it.
 *
 * The compiled CLI (`dist/cli/main.js`, what `npx tabgate` runs) when the last build (`dist/.built`,
 * written by scripts/build.mjs once it completes) is at least as new as every source file, else the
 * source through tsx. `npm test` builds first, so the suite runs what a user runs;
 * a test run straight after an edit, without a build, still runs the edit. The compiled entry matters
 * for the suite's time: tsx's loader costs each child ~1.2 s of CPU to load the gateway (measured on a
 * quiet 2-core machine: 2.4 s of CPU from source, 1.2 s compiled), and the suite starts ~120 of them.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The newest modification time of any file under `dir`. */
function newestUnder(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const child = path.join(dir, entry.name);
    const time = entry.isDirectory() ? newestUnder(child) : fs.statSync(child).mtimeMs;
    if (time > newest) newest = time;
  }
  return newest;
}

function builtIsCurrent(root: string): boolean {
  try {
    return fs.statSync(path.join(root, 'dist/.built')).mtimeMs >= newestUnder(path.join(root, 'src'));
  } catch {
    return false;
  }
}

const current = new Map<string, boolean>();

/**
 * `node` arguments before the CLI's own: `[dist/cli/main.js]` or `['--import', 'tsx', src/cli/main.ts]`.
 * `root` is the checkout to run (another one for a benchmark's "before" side); `built` forces the
 * compiled entry (benchmarks, where tsx's cost would be measured as the gateway's).
 */
export function cliEntry(root: string = ROOT, built = false): string[] {
  if (!built) {
    let fresh = current.get(root);
    if (fresh === undefined) current.set(root, (fresh = builtIsCurrent(root)));
    if (!fresh) return ['--import', 'tsx', path.join(root, 'src/cli/main.ts')];
  }
  return [path.join(root, 'dist/cli/main.js')];
}

/** The CLI's whole command line, `node` included, for a shell (`script -c`). */
export function cliCommand(): string {
  return [process.execPath, ...cliEntry()].join(' ');
}
