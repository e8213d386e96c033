// Builds the loadable extension folder: esbuild bundles the service worker and the popup from
// TypeScript (importing src/protocol and src/engine, never copies of them), and the manifest is
// written with the pinned public key, so the extension id is the same in every checkout.
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

// webNavigation tells which tab a page opened (link target, window.open); it adds no install warning
// beyond the one 'tabs' already brings. declarativeNetRequest blocks cloud metadata addresses while a
// tab is shared (background/metadata-rule.ts); block rules need no host permissions.
const PERMISSIONS = [
  'tabs',
  'tabGroups',
  'debugger',
  'storage',
  'alarms',
  'scripting',
  'webNavigation',
  'declarativeNetRequest',
];
// Match patterns ignore ports: these cover the gateway on any loopback port.
const HOST_PERMISSIONS = ['http://127.0.0.1/*', 'http://localhost/*', 'http://[::1]/*'];

async function publicKey(root) {
  const out = await build({
    entryPoints: [path.join(root, 'src', 'protocol', 'extension-key.ts')],
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'neutral',
    logLevel: 'silent',
  });
  const code = out.outputFiles[0].text;
  const module = await import(`data:text/javascript;base64,${Buffer.from(code).toString('base64')}`);
  return module.EXTENSION_PUBLIC_KEY;
}

export async function buildExtension({ root, outDir }) {
  const here = path.join(root, 'src', 'extension');
  const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  fs.rmSync(outDir, { recursive: true, force: true });
  fs.mkdirSync(outDir, { recursive: true });
  const common = {
    bundle: true,
    format: 'esm',
    target: 'chrome120',
    platform: 'browser',
    logLevel: 'warning',
    legalComments: 'none',
    // ~855 KB unminified. Nothing depends on names: the page-side functions the engine injects are
    // serialised whole and self-contained, so renaming their locals is safe. The map keeps stack traces
    // in DevTools readable.
    minify: true,
    sourcemap: true,
  };
  await Promise.all([
    build({
      ...common,
      entryPoints: [path.join(here, 'background', 'service-worker.ts')],
      outfile: path.join(outDir, 'background.js'),
    }),
    build({
      ...common,
      entryPoints: [path.join(here, 'popup', 'popup.ts')],
      outfile: path.join(outDir, 'popup.js'),
    }),
  ]);
  for (const file of ['popup.html', 'popup.css'])
    fs.copyFileSync(path.join(here, 'popup', file), path.join(outDir, file));
  const manifest = {
    manifest_version: 3,
    name: 'tabgate',
    version: pkg.version,
    description: 'Share a tab with your AI agent through the tabgate gateway on this computer.',
    key: await publicKey(root),
    minimum_chrome_version: '125',
    background: { service_worker: 'background.js', type: 'module' },
    action: { default_popup: 'popup.html', default_title: 'tabgate' },
    permissions: PERMISSIONS,
    host_permissions: HOST_PERMISSIONS,
  };
  fs.writeFileSync(path.join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return outDir;
}
