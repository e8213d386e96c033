/**
 * The transport guards on every route of the route table (not a hand-picked few): DNS rebinding (Host),
 * web pages (Origin), no CORS, body limits; and the same Host/Origin rules on the controller socket.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Route } from '../../src/gateway/http/route-table.js';
import { EXTENSION_ORIGIN, MAX_JSON_BODY_BYTES } from '../../src/protocol/index.js';
import { register, ticketProtocols, upgradeAnswer } from '../gateway/fixtures/controller.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { concretePath, rawRequest } from './fixtures.js';

describe('guards on every route', () => {
  let gw: TestGateway;
  let routes: readonly Route[];
  let port: string;
  before(async () => {
    gw = await startTestGateway({ backend: new RecordingBackend() });
    routes = gw.gateway.routes();
    port = new URL(gw.url).port;
  });
  after(() => gw.close());

  const send = (route: Route, headers: Record<string, string>, body?: string) =>
    rawRequest(gw.url, {
      method: route.method,
      path: concretePath(route.path),
      headers: {
        authorization: `Bearer ${gw.key}`,
        'content-type': 'application/json',
        ...headers,
      },
      body: body ?? (route.method === 'GET' ? undefined : '{}'),
    });

  it('walks a route table that includes the API, pairing, audit and MCP routes', () => {
    const paths = routes.map((r) => r.path);
    for (const expected of ['/v1/browser-control/register', '/v1/sessions', '/v1/audit', '/mcp'])
      assert.ok(paths.includes(expected), `${expected} is in the route table`);
    assert.ok(paths.some((p) => p.startsWith('/pair/')));
  });

  it('refuses a rebinding Host header on every route with 403 forbidden_host', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, `127.0.0.1:${Number(port) + 1}`]) {
      for (const route of routes) {
        const response = await send(route, { host });
        assert.equal(response.status, 403, `${route.method} ${route.path} with Host ${host}`);
        assert.equal(response.code, 'forbidden_host', `${route.method} ${route.path}`);
      }
    }
  });

  it('refuses a web page Origin on every route with 403 forbidden_origin', async () => {
    for (const origin of [
      'https://evil.example',
      'null',
      'http://localhost:3000',
      `http://evil.example:${port}`,
    ]) {
      for (const route of routes) {
        const response = await send(route, { origin });
        assert.equal(response.status, 403, `${route.method} ${route.path} with Origin ${origin}`);
        assert.equal(response.code, 'forbidden_origin', `${route.method} ${route.path}`);
      }
    }
  });

  it('sends no CORS headers on any route, to web pages or to the extension', async () => {
    for (const origin of ['https://evil.example', EXTENSION_ORIGIN]) {
      for (const route of routes) {
        const response = await send(route, { origin });
        const cors = Object.keys(response.headers).filter((h) => h.startsWith('access-control-'));
        assert.deepEqual(cors, [], `${route.method} ${route.path} answered ${origin} with ${cors.join(',')}`);
      }
      const preflight = await rawRequest(gw.url, {
        method: 'OPTIONS',
        path: '/v1/sessions',
        headers: { origin, 'access-control-request-method': 'POST' },
      });
      assert.equal(preflight.headers['access-control-allow-origin'], undefined);
    }
  });

  it('refuses a body over 1 MiB on every route that takes one, before authentication', async () => {
    const big = JSON.stringify({ pad: 'x'.repeat(MAX_JSON_BODY_BYTES) });
    for (const route of routes.filter((r) => r.method !== 'GET')) {
      const response = await send(route, { authorization: '' }, big);
      assert.equal(response.status, 413, `${route.method} ${route.path}`);
      assert.equal(response.code, 'body_too_large');
    }
  });

  it('refuses a chunked body over 1 MiB that declares no length', async () => {
    const response = await rawRequest(gw.url, {
      method: 'POST',
      path: '/v1/sessions',
      headers: {
        authorization: `Bearer ${gw.key}`,
        'transfer-encoding': 'chunked',
        'content-type': 'application/json',
      },
      body: JSON.stringify({ title: 'x'.repeat(MAX_JSON_BODY_BYTES + 10) }),
    });
    assert.equal(response.status, 413);
  });

  it('refuses a controller socket with a rebinding Host or a web page Origin', async () => {
    const sessionId = await gw.createSession();
    const ticket = await register(gw, { sessionId });
    const attempts: [Record<string, string>, string][] = [
      [{ host: `evil.example:${port}` }, 'forbidden_host'],
      [{ origin: 'https://evil.example' }, 'forbidden_origin'],
      [{ origin: 'null' }, 'forbidden_origin'],
    ];
    for (const [headers, code] of attempts)
      assert.deepEqual(await upgradeAnswer(gw, { protocols: ticketProtocols(ticket), headers }), {
        status: 403,
        code,
      });
  });
});
