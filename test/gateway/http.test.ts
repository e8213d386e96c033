/* eslint-disable @typescript-eslint/no-unsafe-member-access, @typescript-eslint/no-unsafe-assignment -- tests read JSON bodies */
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type Json, type TestGateway } from './fixtures/gateway.js';

/** A raw request, so tests control the Host header and the body bytes. */
function rawRequest(
  gw: TestGateway,
  o: { method?: string; path: string; headers?: Record<string, string>; body?: Buffer | string },
): Promise<{ status: number; body: Json }> {
  const url = new URL(gw.url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        method: o.method ?? 'GET',
        path: o.path,
        headers: { authorization: `Bearer ${gw.key}`, ...o.headers },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : null });
        });
      },
    );
    req.on('error', reject);
    if (o.body !== undefined) req.write(o.body);
    req.end();
  });
}

describe('HTTP API guards', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway();
  });
  after(() => gw.close());

  it('refuses a Host header that does not name the bound loopback address', async () => {
    const result = await rawRequest(gw, { path: '/v1/sessions', headers: { host: 'evil.example:80' } });
    assert.equal(result.status, 403);
    assert.equal(result.body.error.code, 'forbidden_host');
  });

  it('accepts localhost with the bound port as Host', async () => {
    const port = new URL(gw.url).port;
    const result = await rawRequest(gw, { path: '/v1/sessions', headers: { host: `localhost:${port}` } });
    assert.equal(result.status, 200);
  });

  it('refuses a request carrying a web page Origin', async () => {
    const result = await gw.request('GET', '/v1/sessions', { headers: { origin: 'https://evil.example' } });
    assert.equal(result.status, 403);
    assert.equal(result.body.error.code, 'forbidden_origin');
  });

  it("accepts the tabgate extension's own Origin", async () => {
    const { TABGATE_EXTENSION_ORIGIN } = await import('../../src/gateway/guards/origin.js');
    const result = await gw.request('GET', '/v1/sessions', { headers: { origin: TABGATE_EXTENSION_ORIGIN } });
    assert.equal(result.status, 200);
  });

  it('refuses a missing or wrong bearer key with 401 invalid_api_key', async () => {
    const wrong = await gw.request('GET', '/v1/sessions', { headers: { authorization: 'Bearer nope' } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.error.code, 'invalid_api_key');
    const missing = await rawRequest(gw, { path: '/v1/sessions', headers: { authorization: '' } });
    assert.equal(missing.status, 401);
  });

  it('answers 413 body_too_large for a body over 1 MiB', async () => {
    const body = Buffer.alloc(1024 * 1024 + 10, 0x20);
    const result = await rawRequest(gw, {
      method: 'POST',
      path: '/v1/sessions',
      headers: { 'content-type': 'application/json' },
      body,
    });
    assert.equal(result.status, 413);
    assert.equal(result.body.error.code, 'body_too_large');
  });

  it('answers 413 for an oversized chunked body without a Content-Length', async () => {
    const url = new URL(gw.url);
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        host: url.hostname,
        port: url.port,
        method: 'POST',
        path: '/v1/sessions',
        headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', (error: NodeJS.ErrnoException) => (error.code === 'EPIPE' ? undefined : reject(error)));
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      for (let i = 0; i < 20; i++) req.write(chunk);
      req.end();
    });
    assert.equal(status, 413);
  });

  it('answers 400 invalid_json for malformed JSON and for a non-object body', async () => {
    const malformed = await gw.request('POST', '/v1/sessions', {
      raw: '{"title":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.error.code, 'invalid_json');
    const list = await gw.request('POST', '/v1/sessions', { body: [1, 2] });
    assert.equal(list.body.error.code, 'invalid_json');
  });

  it('answers 415 unsupported_media_type for a body that is not sent as JSON', async () => {
    const form = await gw.request('POST', '/v1/sessions', {
      raw: 'title=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(form.status, 415);
    assert.equal(form.body.error.code, 'unsupported_media_type');
  });

  it('answers 404 not_found for unknown paths and 405 for a wrong method', async () => {
    assert.equal((await gw.request('GET', '/v1/nope')).body.error.code, 'not_found');
    const wrongMethod = await gw.request('PUT', '/v1/sessions');
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.body.error.code, 'method_not_allowed');
  });
});
