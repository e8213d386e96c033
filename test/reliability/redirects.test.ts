/**
 * Pages that send the browser elsewhere — what login flows are made of — navigated again and again on
 * the local Chromium: an inline script that redirects at once, a meta refresh of 0, a script that
 * redirects after 50 ms, and a five-hop chain that crosses origins with HTTP, meta and script hops.
 * Every navigation lands on the page that finally settles and says how it got there; none times out and
 * none is an internal error. Bounded: 8 rounds of each. Full (SOAK=1): 100 of each.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { callTool, type CallOutcome } from './fixtures/agent.js';
import { startChildGateway, type ChildGateway } from './fixtures/child-gateway.js';
import { percentile, scaled } from './fixtures/scale.js';

const ROUNDS = scaled(8, 100);
const COMMAND_TIMEOUT_SECONDS = 20;

interface Hop {
  url: string;
  via: string;
  status?: number;
}
interface NavigateResult {
  url: string;
  title: string;
  redirects?: Hop[];
}

/** Two origins (127.0.0.1 and localhost), each serving the same redirecting pages. */
async function startRedirectSite(): Promise<{ a: string; b: string; close(): Promise<void> }> {
  const origins = { a: '', b: '' };
  const page = (title: string, head = '', body = '') =>
    `<!doctype html><html><head><title>${title}</title>${head}</head><body><h1>${title}</h1>${body}</body></html>`;
  const handler: http.RequestListener = (request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const html = (body: string) => {
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
      response.end(body);
    };
    switch (url.pathname) {
      case '/final':
        return html(page('Final', '', '<p>You arrived.</p><a href="/x">Onwards</a>'));
      case '/inline':
        return html(page('Inline', `<script>location.replace('/final')</script>`));
      case '/meta0':
        return html(page('Meta', `<meta http-equiv="refresh" content="0; url=/final">`));
      case '/script50':
        return html(page('Later', `<script>setTimeout(() => { location.href = '/final' }, 50)</script>`));
      // The chain: a → (302) b → (meta) a → (script) b → (302) a/final.
      case '/hop1':
        response.writeHead(302, { location: `${origins.b}/hop2` });
        return response.end();
      case '/hop2':
        return html(page('Hop 2', `<meta http-equiv="refresh" content="0; url=${origins.a}/hop3">`));
      case '/hop3':
        return html(page('Hop 3', `<script>location.href = ${JSON.stringify(`${origins.b}/hop4`)}</script>`));
      case '/hop4':
        response.writeHead(302, { location: `${origins.a}/final` });
        return response.end();
      default:
        response.writeHead(404, { 'content-type': 'text/plain' });
        response.end('not found');
    }
  };
  const servers = [http.createServer(handler), http.createServer(handler)];
  const listen = (server: http.Server) =>
    new Promise<number>((resolve) =>
      server.listen(0, '127.0.0.1', () => resolve((server.address() as AddressInfo).port)),
    );
  origins.a = `http://127.0.0.1:${await listen(servers[0] as http.Server)}`;
  origins.b = `http://localhost:${await listen(servers[1] as http.Server)}`;
  return {
    ...origins,
    async close() {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };
}

describe(`redirecting pages, ${ROUNDS} navigations each`, () => {
  const home = makeHome();
  let gw: ChildGateway;
  let site: Awaited<ReturnType<typeof startRedirectSite>>;
  let sessionId = '';
  const outcomes = new Map<string, CallOutcome[]>();

  before(async () => {
    site = await startRedirectSite();
    gw = await startChildGateway({
      home,
      backend: 'configured',
      config: { browser: { command_timeout: COMMAND_TIMEOUT_SECONDS } },
    });
    const created = await gw.request('POST', '/v1/sessions', {});
    sessionId = String((created.body as { session_id: string }).session_id);
    const pages = ['/inline', '/meta0', '/script50', '/hop1'];
    for (let round = 0; round < ROUNDS; round++) {
      for (const path of pages) {
        const outcome = await callTool({
          baseUrl: gw.url,
          key: gw.key,
          sessionId,
          tool: 'browser_navigate',
          args: { url: site.a + path },
          guardMs: (COMMAND_TIMEOUT_SECONDS + 5) * 1000,
        });
        outcomes.set(path, [...(outcomes.get(path) ?? []), outcome]);
      }
    }
    for (const [path, list] of outcomes) {
      const ms = list.map((o) => o.ms).sort((x, y) => x - y);
      const codes = list.filter((o) => o.outcome !== 'ok').map((o) => o.outcome);
      console.log(
        `redirects ${path}: ${list.length} navigations, p50 ${percentile(ms, 50).toFixed(0)} ms, ` +
          `max ${(ms.at(-1) ?? 0).toFixed(0)} ms, failures ${codes.length ? codes.join(',') : 'none'}`,
      );
    }
  });

  after(async () => {
    await gw?.stop();
    await site?.close();
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
  });

  const landed = (path: string) => (outcomes.get(path) ?? []).map((o) => o.result as NavigateResult);

  it('never times out and never answers an internal error', () => {
    for (const [path, list] of outcomes) {
      const failures = list.filter((o) => o.outcome !== 'ok').map((o) => `${o.status} ${o.outcome}`);
      assert.deepEqual(failures, [], `${path}: ${failures.join(', ')}`);
    }
  });

  for (const [path, via] of [
    ['/inline', 'script'],
    ['/meta0', 'meta_refresh'],
    ['/script50', 'script'],
  ] as const) {
    it(`${path} lands on the final page and reports the ${via} hop`, () => {
      for (const result of landed(path)) {
        assert.equal(result.url, `${site.a}/final`);
        assert.equal(result.title, 'Final');
        assert.deepEqual(result.redirects, [{ url: `${site.a}${path}`, via }]);
      }
    });
  }

  it('follows a five-hop chain across origins and reports every hop', () => {
    for (const result of landed('/hop1')) {
      assert.equal(result.url, `${site.a}/final`);
      assert.deepEqual(result.redirects, [
        { url: `${site.a}/hop1`, via: 'http', status: 302 },
        { url: `${site.b}/hop2`, via: 'meta_refresh' },
        { url: `${site.a}/hop3`, via: 'script' },
        { url: `${site.b}/hop4`, via: 'http', status: 302 },
      ]);
    }
  });

  it('shows the final page in the snapshot that comes with the answer', async () => {
    const outcome = await callTool({
      baseUrl: gw.url,
      key: gw.key,
      sessionId,
      tool: 'browser_navigate',
      args: { url: `${site.a}/script50` },
      guardMs: (COMMAND_TIMEOUT_SECONDS + 5) * 1000,
    });
    const snapshot = JSON.stringify((outcome.result as { snapshot?: unknown }).snapshot);
    assert.match(snapshot, /You arrived/);
  });
});
