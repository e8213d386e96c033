// Builds everything a user runs: the gateway and CLI (tsc → dist/), the owner's dashboard (esbuild →
// dist/dashboard/) and, when present, the browser extension (esbuild → dist/extension/). Runs on `npm ci`
// through the `prepare` script.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], {
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
