// Runs the test suite with node's own test runner and closes with the plain `N passed, N failed` line CI
// reads. Arguments narrow the run to files or folders: `npm test -- test/gateway`. The suite runs
// compiled to JavaScript in .test-build/run-<pid>/ (scripts/build-tests.mjs says why), built at each run.
// End-to-end files (`*.e2e.test.ts`: the real extension in a real browser, whose service-worker and
// socket timings are the point) run in a second pass, two at a time (E2E_CONCURRENCY), so the rest of
// the suite competing for this machine's two cores cannot stretch their timings. Two at a time keeps
// both cores busy (one file alone waits on its browser about half the time): the pass took 300 s
// instead of 439 s one at a time, with no failure in repeated runs.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildTests, compiledTestPath } from './build-tests.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const roots = args.length > 0 ? args : ['test'];

function collect(target, out) {
  const abs = path.resolve(root, target);
  if (!existsSync(abs)) {
    console.error(`no test file or folder ${target}`);
    process.exit(1);
  }
  const stat = statSync(abs);
  if (stat.isFile()) {
    out.push(abs);
    return out;
  }
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const child = path.join(abs, entry.name);
    if (entry.isDirectory()) collect(child, out);
    else if (/\.test\.ts$/.test(entry.name)) out.push(child);
  }
  return out;
}

const files = roots.flatMap((r) => collect(r, [])).sort();
if (files.length === 0) {
  console.error('no test files found under', roots.join(', '));
  process.exit(1);
}
await buildTests();
const isEndToEnd = (file) => file.endsWith('.e2e.test.ts');
const passes = [
  { files: files.filter((f) => !isEndToEnd(f)), concurrency: process.env.TEST_CONCURRENCY ?? '2' },
  { files: files.filter(isEndToEnd), concurrency: process.env.E2E_CONCURRENCY ?? '2' },
].filter((pass) => pass.files.length > 0);

/** Per test file; `npm run soak` (SOAK=1) runs the reliability suites at full size, for minutes each. */
const TEST_TIMEOUT_MS = process.env.SOAK === '1' ? 1_800_000 : 180_000;

let passed = 0;
let failed = 0;

function run(pass) {
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        '--enable-source-maps',
        '--test',
        `--test-concurrency=${pass.concurrency}`,
        `--test-timeout=${TEST_TIMEOUT_MS}`,
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${path.join(root, 'scripts', 'slowest-files-reporter.mjs')}`,
        '--test-reporter-destination=stdout',
        ...pass.files.map(compiledTestPath),
      ],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TABGATE_TEST: '1' } },
    );
    let pending = '';
    let passPassed = 0;
    let passFailed = 0;
    let passCancelled = 0;
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      pending += chunk.toString('utf8');
      const lines = pending.split('\n');
      pending = lines.pop() ?? '';
      for (const line of lines) {
        const pass = /^ℹ pass (\d+)/.exec(line);
        const fail = /^ℹ fail (\d+)/.exec(line);
        const cancelled = /^ℹ cancelled (\d+)/.exec(line);
        if (pass) passPassed = Number(pass[1]);
        if (fail) passFailed = Number(fail[1]);
        // A file that outruns --test-timeout is cancelled, not failed, yet fails the run: count it.
        if (cancelled) passCancelled = Number(cancelled[1]);
      }
    });
    child.on('close', (code) => {
      passed += passPassed;
      failed += passFailed + passCancelled;
      resolve(code ?? 1);
    });
  });
}

let exitCode = 0;
for (const pass of passes) {
  const code = await run(pass);
  if (code !== 0) exitCode = code;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(exitCode);
