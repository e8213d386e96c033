// Runs the test suite with node's own test runner (TypeScript through tsx) and closes with the plain
// `N passed, N failed` line CI reads. Arguments narrow the run to files or folders: `npm test -- test/gateway`.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const args = process.argv.slice(2);
const roots = args.length > 0 ? args : ['test'];

function collect(target, out) {
  const abs = path.resolve(root, target);
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

const concurrency = process.env.TEST_CONCURRENCY ?? '2';
const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    `--test-concurrency=${concurrency}`,
    '--test-timeout=180000',
    '--test-reporter=spec',
    ...files,
  ],
  { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, TABGATE_TEST: '1' } },
);

let passed = 0;
let failed = 0;
let pending = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  pending += chunk.toString('utf8');
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    const pass = /^ℹ pass (\d+)/.exec(line);
    const fail = /^ℹ fail (\d+)/.exec(line);
    if (pass) passed = Number(pass[1]);
    if (fail) failed = Number(fail[1]);
  }
});
child.on('close', (code) => {
  console.log(`${passed} passed, ${failed} failed`);
  process.exit(code ?? 1);
});
