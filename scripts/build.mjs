// Builds everything a user runs: the gateway and CLI (tsc → dist/), the owner's dashboard (esbuild →
// dist/dashboard/) and, when present, the browser extension (esbuild → dist/extension/). Runs on `npm ci`
// through the `prepare` script, and again before `npm test`.
//
// tsc runs in build mode (`-b`, its state in dist/.tsbuildinfo): with no source changed since the last
// build it writes nothing and takes 0.6 s instead of 22 s, and after an edit it re-emits only what the
// edit affects. Delete dist/ to force a full build. Since unchanged outputs keep their old times,
// dist/.built records when a build last completed (test/helpers/cli-entry.ts compares it to src/).
import { spawnSync } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-b', path.join(root, 'tsconfig.build.json')], {
  stdio: 'inherit',
});
if (result.status !== 0) process.exit(result.status ?? 1);

const { buildDashboard } = await import(path.join(root, 'src', 'dashboard', 'build.mjs'));
await buildDashboard({ root, outDir: path.join(root, 'dist', 'dashboard') });

const extensionBuild = path.join(root, 'src', 'extension', 'build.mjs');
if (existsSync(extensionBuild)) {
  const { buildExtension } = await import(extensionBuild);
  await buildExtension({ root, outDir: path.join(root, 'dist', 'extension') });
}

writeFileSync(path.join(root, 'dist', '.built'), `${new Date().toISOString()}\n`);
