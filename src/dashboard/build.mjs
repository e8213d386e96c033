// Builds the owner's dashboard: esbuild bundles src/dashboard/main.ts (Preact + htm, and the protocol's
// types) into dist/dashboard/app.js, and copies the one stylesheet. The gateway serves both itself.
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

export async function buildDashboard({ root, outDir }) {
  const here = path.join(root, 'src', 'dashboard');
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [path.join(here, 'main.ts')],
    outfile: path.join(outDir, 'app.js'),
    bundle: true,
    format: 'esm',
    target: 'chrome120',
    platform: 'browser',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });
  fs.copyFileSync(path.join(here, 'app.css'), path.join(outDir, 'app.css'));
}
