// Builds the loadable extension folder: esbuild bundles the service worker and the popup from
// TypeScript (importing src/protocol and src/engine, never copies of them), and the manifest is
// written with the pinned public key, so the extension id is the same in every checkout.
import { Buffer } from 'node:buffer';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
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
  // An approval the agent waits for is announced outside the page, in the system's own UI.
  'notifications',
  // A download the shared tab starts is held (onDeterminingFilename) until the person approves it.
  'downloads',
];
// Match patterns ignore ports: these cover the gateway on any loopback port.
function crc32(bytes) {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A square of one colour as a PNG: the icon a notification requires, made here rather than checked in. */
function solidPng(size, [r, g, b]) {
  const chunk = (type, data) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'ascii');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([
    Buffer.from([0]),
    Buffer.from(Array.from({ length: size }, () => [r, g, b]).flat()),
  ]);
  const raw = Buffer.concat(Array.from({ length: size }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', zlib.deflateSync(raw)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

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
    icons: { 48: 'icon.png' },
    permissions: PERMISSIONS,
    host_permissions: HOST_PERMISSIONS,
  };
  fs.writeFileSync(path.join(outDir, 'icon.png'), solidPng(48, [26, 115, 232]));
  fs.writeFileSync(path.join(outDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
  return outDir;
}
