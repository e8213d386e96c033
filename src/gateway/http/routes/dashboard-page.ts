/**
 * The dashboard's page and its two bundled assets, served by the gateway itself (it is often offline:
 * no CDN, no external font). The page is an empty shell; the script (`dist/dashboard/app.js`, built by
 * `npm run build` from `src/dashboard/`) renders it. The CSP allows only these same-origin files, fetches
 * to the gateway and screenshots as blobs: no inline script or style, no frames, no forms, no framing.
 * Anyone may load the shell; everything it shows comes from operator-only routes.
 */
import fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Route } from '../route-table.js';

export const DASHBOARD_PATH = '/';
const ASSETS = { 'app.js': 'text/javascript; charset=utf-8', 'app.css': 'text/css; charset=utf-8' } as const;

/** `dist/dashboard` of this package, whether the gateway runs built (dist/) or from src/. */
export function dashboardAssetsDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return path.join(dir, 'dist', 'dashboard');
}

export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' blob:",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1"><title>tabgate dashboard</title>
<link rel="stylesheet" href="/dashboard/app.css"></head>
<body><div id="app"><p>Loading the tabgate dashboard…</p></div>
<noscript>The tabgate dashboard needs JavaScript.</noscript>
<script type="module" src="/dashboard/app.js"></script></body></html>`;

function send(res: ServerResponse, type: string, body: string | Buffer): void {
  res.writeHead(200, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'content-security-policy': DASHBOARD_CSP,
    'x-frame-options': 'DENY',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
    'cache-control': 'no-store',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
  });
  res.end(body);
}

export function dashboardPageRoutes(dir = dashboardAssetsDir()): Route[] {
  const cache = new Map<string, Buffer>();
  const asset = (name: keyof typeof ASSETS): Buffer => {
    let body = cache.get(name);
    if (!body) {
      try {
        body = fs.readFileSync(path.join(dir, name));
      } catch {
        return Buffer.from(
          `/* the dashboard is not built: run npm run build (expected ${name} in ${dir}) */`,
        );
      }
      cache.set(name, body);
    }
    return body;
  };
  return [
    {
      method: 'GET',
      path: DASHBOARD_PATH,
      auth: 'custom',
      handle: (ctx) => send(ctx.res, 'text/html; charset=utf-8', HTML),
    },
    ...(Object.keys(ASSETS) as (keyof typeof ASSETS)[]).map((name): Route => ({
      method: 'GET',
      path: `/dashboard/${name}`,
      auth: 'custom',
      // A module script is fetched in CORS mode, so the page's own Origin comes with it.
      sameOriginPage: true,
      handle: (ctx) => send(ctx.res, ASSETS[name], asset(name)),
    })),
  ];
}
