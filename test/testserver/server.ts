/**
 * The local test site: two node:http servers on port 0 (two origins, so iframes can be cross-site and
 * out-of-process), serving the pages every backend's conformance suite browses.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import { IMAGES, pages } from './pages.js';
import { downloadBytes } from './task-pages.js';

export interface TestSite {
  /** Absolute URL of a path on the main origin. */
  url(path: string): string;
  /** Absolute URL of a path on the second (cross-site) origin. */
  otherUrl(path: string): string;
  /** Every request either origin received, in order, with the User-Agent that sent it. */
  readonly requests: readonly { path: string; userAgent: string }[];
  close(): Promise<void>;
}

export interface TestSiteOptions {
  /** Host names for the two origins (default 127.0.0.1 and localhost: two different sites). */
  hosts?: [string, string];
}

function handler(
  getOther: () => string,
  requests: { path: string; userAgent: string }[],
): http.RequestListener {
  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    requests.push({ path: url.pathname + url.search, userAgent: request.headers['user-agent'] ?? '' });
    const send = (status: number, type: string, body: string, headers: http.OutgoingHttpHeaders = {}) => {
      response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
      response.end(body);
    };
    if (url.pathname === '/redirect')
      return send(302, 'text/plain', '', { location: url.searchParams.get('to') ?? '/' });
    if (url.pathname === '/echo-sha256') {
      const hash = createHash('sha256');
      request.on('data', (chunk: Buffer) => hash.update(chunk));
      request.on('end', () => send(200, 'text/plain', hash.digest('hex')));
      return;
    }
    if (url.pathname === '/download') {
      const name = (url.searchParams.get('name') ?? 'file.bin').replace(/[^\w.-]/g, '_');
      const bytes = downloadBytes(Number(url.searchParams.get('size') ?? '100'));
      response.writeHead(200, {
        'content-type': name.endsWith('.csv') ? 'text/csv' : 'application/octet-stream',
        'content-length': String(bytes.length),
        'content-disposition': `attachment; filename="${name}"`,
      });
      response.end(bytes);
      return;
    }
    if (url.pathname === '/missing') return send(404, 'text/html', '<title>Missing</title><h1>Not here</h1>');
    if (url.pathname === '/set-cookie') {
      const value = url.searchParams.get('v') ?? 'x';
      return send(200, 'text/html', `<title>Set</title><p>set ${value}</p>`, {
        'set-cookie': `tg=${value}; Path=/`,
      });
    }
    if (url.pathname === '/slow') {
      const timer = setTimeout(() => send(200, 'text/html', '<title>Slow</title>slow'), 60_000);
      request.on('close', () => clearTimeout(timer));
      return;
    }
    const image = IMAGES[url.pathname];
    if (image) return send(200, 'image/svg+xml', image);
    const html = pages(getOther())[url.pathname];
    if (html) return send(200, 'text/html; charset=utf-8', html);
    send(404, 'text/plain', 'not found');
  };
}

async function listen(server: http.Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

export async function startTestSite(options: TestSiteOptions = {}): Promise<TestSite> {
  const [hostA, hostB] = options.hosts ?? ['127.0.0.1', 'localhost'];
  let otherOrigin = '';
  let mainOrigin = '';
  const requests: { path: string; userAgent: string }[] = [];
  const main = http.createServer(handler(() => otherOrigin, requests));
  const other = http.createServer(handler(() => mainOrigin, requests));
  mainOrigin = `http://${hostA}:${await listen(main)}`;
  otherOrigin = `http://${hostB}:${await listen(other)}`;
  return {
    url: (path) => mainOrigin + path,
    otherUrl: (path) => otherOrigin + path,
    requests,
    async close() {
      for (const server of [main, other]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}
