// Compiles the test suite, with the sources it imports, to plain JavaScript before `npm test` runs it,
// in .test-build/run-<pid>/: a folder per run, so two runs at once never pull files from under each
// other, removed when the run ends (or by the next run, when a run was killed). It is a mirror of the
// checkout in which src/, test/, bench/ and plugins/ hold their files as they are plus a .js beside each
// .ts (esbuild, no bundling, inline source maps), and every other top-level entry (dist/, docs/,
// package.json, node_modules/…) is a link to the real one, so a test that finds files from its own
// location finds the same ones.
//
// Why: through tsx's loader every test process and every child it starts paid ~1.1 s of CPU more for
// the same modules (six gateway test files side by side: 14–18 s of CPU through tsx, 7.7–8.8 s
// compiled), over ~180 processes on a 2-core machine. The copies keep their sources' modification
// times, so "is the build newer than the sources" checks answer as they would in the checkout.
//
// Type errors are the type check's job (`npm run check`); esbuild only strips types.
import { build } from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const BUILDS = path.join(root, '.test-build');
const TEST_BUILD = path.join(BUILDS, `run-${process.pid}`);
const COMPILED = new Set(['src', 'test', 'bench', 'plugins']);
const NEVER = new Set(['.git', '.test-build']);

/** Copies a source folder with its files' times (see above); returns the TypeScript files in it. */
function copyTree(from, to) {
  fs.cpSync(from, to, {
    recursive: true,
    preserveTimestamps: true,
    filter: (source) => path.basename(source) !== 'node_modules',
  });
  return fs
    .readdirSync(to, { recursive: true })
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.d.ts'))
    .map((name) => path.join(from, name));
}

function isRunning(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** Removes the builds of runs that ended without removing theirs (killed). */
function removeAbandoned() {
  for (const name of fs.existsSync(BUILDS) ? fs.readdirSync(BUILDS) : []) {
    const pid = Number(/^run-(\d+)$/.exec(name)?.[1]);
    if (!pid || !isRunning(pid)) fs.rmSync(path.join(BUILDS, name), { recursive: true, force: true });
  }
}

/** Builds this run's mirror; it is removed when the process exits. */
export async function buildTests() {
  removeAbandoned();
  fs.rmSync(TEST_BUILD, { recursive: true, force: true });
  fs.mkdirSync(TEST_BUILD, { recursive: true });
  process.on('exit', () => fs.rmSync(TEST_BUILD, { recursive: true, force: true }));
  const typescript = [];
  for (const entry of fs.readdirSync(root, { withFileTypes: true })) {
    if (NEVER.has(entry.name)) continue;
    const source = path.join(root, entry.name);
    if (COMPILED.has(entry.name) && entry.isDirectory())
      typescript.push(...copyTree(source, path.join(TEST_BUILD, entry.name)));
    else fs.symlinkSync(source, path.join(TEST_BUILD, entry.name));
  }
  await build({
    entryPoints: typescript,
    outdir: TEST_BUILD,
    outbase: root,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'inline',
    logLevel: 'warning',
  });
  // The .js files get their sources' times too (see above).
  for (const source of typescript) {
    const { atime, mtime } = fs.statSync(source);
    fs.utimesSync(compiledTestPath(source), atime, mtime);
  }
}

/** Where the compiled form of a checkout's TypeScript file lives. */
export function compiledTestPath(file) {
  return path.join(TEST_BUILD, path.relative(root, file)).replace(/\.ts$/, '.js');
}
