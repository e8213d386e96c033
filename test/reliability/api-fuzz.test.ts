/**
 * Random input on every door an agent reaches: every route of the route table, under every kind of
 * credential, with random bodies, path parameters, queries and content types; and every tool with random
 * arguments on a real page in the local Chromium (forms, dialogs, a dead link, a download, a popup).
 * Each answer is a result or an error of the error table with that error's status, never
 * `internal_error`, and the gateway logs no unexpected error. Bounded: 12 requests per route and
 * credential, 150 tool calls. Full (SOAK=1): 100 and 1,500.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { describeTools, ERROR_TABLE, isErrorCode } from '../../src/protocol/index.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { rawRequest } from '../security/fixtures.js';
import { randomJson, type JsonShape } from './fixtures/random-json.js';
import { scaled, SEED, seededRandom } from './fixtures/scale.js';

const REQUESTS_PER_ROUTE = scaled(12, 100);
const TOOL_CALLS = scaled(150, 1_500);

const MOVING = new Set([
  'browser_navigate',
  'browser_back',
  'browser_forward',
  'browser_reload',
  'browser_tab_new',
]);

const random = seededRandom(SEED);
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
const text = (max: number) =>
  Array.from({ length: Math.floor(random() * max) }, () =>
    String.fromCharCode(pick([32 + Math.floor(random() * 95), 0, 0xe9, 0x2028, 0xd800, 0x1f60])),
  ).join('');

const KEYS = [
  ...['title', 'id', 'source', 'url', 'ref', 'text', 'session_id', 'controller_id', 'capabilities'],
  ...['protocol_version', 'site', 'approve', 'reason', 'label', 'mode', 'enabled', 'approval_id'],
  ...['token', 'limit', 'paths', 'secret', '__proto__', 'constructor', 'prototype'],
];

const BODY_JSON: JsonShape = {
  maxDepth: 3,
  leafBelow: 0.35,
  arrayBelow: 0.55,
  maxKeys: 6,
  leaf: () => pick([null, true, false, 0, -1, 1.5, 1e308, 2 ** 53 + 1, '', 'x', text(12), 'javascript:x']),
  key: () => pick(KEYS),
};

/** Whether an error answer is one of tabgate's: a table code, with the status the table gives it. */
function typedError(status: number, code: string | undefined): boolean {
  return isErrorCode(code) && code !== 'internal_error' && ERROR_TABLE[code].status === status;
}

const unexpected = (gw: TestGateway) =>
  gw.logLines.filter((line) => /unexpected error|browser call failed/.test(line));

describe('random input on every route and every tool', () => {
  describe('every route, every credential', () => {
    let gw: TestGateway;
    before(async () => {
      gw = await startTestGateway({ backend: new RecordingBackend() });
    });
    after(() => gw.close());

    it('answers a result or a typed error, never a 5xx', async () => {
      const sessionId = await gw.createSession();
      const credentials = [`Bearer ${gw.key}`, `Bearer ${gw.operatorKey}`, 'Bearer x', undefined];
      const params = ['x', sessionId, '%00', '..', '%2e%2e', 'a'.repeat(300), '%F0%9F%98%80', '%ZZ'];
      const queries = ['', '?limit=-1', '?limit=abc', '?after=%00', `?session=${sessionId}`, '?a=b&a=c'];
      const wrong: string[] = [];
      // The live event stream answers with a stream that stays open: its guards are tested elsewhere.
      for (const route of gw.gateway.routes().filter((r) => !r.path.endsWith('/events'))) {
        for (const authorization of credentials) {
          for (let i = 0; i < REQUESTS_PER_ROUTE; i++) {
            const path = route.path.replace(/:[A-Za-z_]+/g, () => pick(params)) + pick(queries);
            const roll = random();
            const body =
              route.method === 'GET' && roll < 0.7
                ? undefined
                : roll < 0.75
                  ? JSON.stringify(randomJson(random, BODY_JSON))
                  : roll < 0.9
                    ? text(50)
                    : '{"a":';
            const response = await rawRequest(gw.url, {
              method: route.method,
              path,
              headers: {
                'content-type': pick(['application/json', 'text/plain', 'application/json; charset=latin1']),
                ...(authorization ? { authorization } : {}),
              },
              body,
            });
            const isJson = /json/.test(String(response.headers['content-type']));
            // Pages for a person (HTML) and MCP's JSON-RPC answer in their own formats; none may be a 5xx.
            const ok =
              response.status < 400 ||
              typedError(response.status, response.code) ||
              (response.status < 500 && (!isJson || route.path === '/mcp'));
            if (!ok)
              wrong.push(
                `${route.method} ${path.slice(0, 60)}: ${response.status} ${response.text.slice(0, 120)}`,
              );
          }
        }
      }
      assert.deepEqual(wrong.slice(0, 10), []);
      assert.deepEqual(unexpected(gw), []);
    });
  });

  describe('every tool on a real page', () => {
    let gw: TestGateway;
    let site: http.Server;
    let base: string;
    before(async () => {
      site = http.createServer((req, res) => {
        if (req.url === '/file') {
          res.writeHead(200, { 'content-disposition': 'attachment; filename=a.bin' });
          res.end('a');
          return;
        }
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(`<!doctype html><title>fuzz</title>
          <form action="/sent"><input name=a><input type=password name=p><textarea name=t></textarea>
          <select name=s><option>one</option><option>two</option></select><input type=checkbox name=c>
          <button>Go</button></form>
          <a href="/next">next</a> <a href="http://127.0.0.1:9/">dead</a> <a href="/file">file</a>
          <button onclick="alert('a')">alert</button> <button onclick="confirm('sure?')">confirm</button>
          <button onclick="document.body.innerHTML=''">wipe</button> <button onclick="window.open('/next')">popup</button>
          <iframe srcdoc="<input><button>in</button>"></iframe><div style="height:3000px">tall</div>`);
      });
      await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
      gw = await startTestGateway({ config: { browser: { extension_control: { enabled: false } } } });
    });
    after(async () => {
      await gw.close();
      site.close();
    });

    it('answers a result or a typed error, never internal_error', async () => {
      const sessionId = await gw.createSession();
      const call = (tool: string, args: unknown) =>
        gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body: args });
      await call('browser_navigate', { url: `${base}/` });
      let refs = ['@e1', '@e999', '', 'e2', '@e-1'];
      const urls = [`${base}/`, `${base}/next`, `${base}/file`, 'about:blank', 'http://127.0.0.1:9/', 'x'];
      // Asking the person, and files on this machine, have suites of their own.
      const tools = describeTools().filter(
        (tool) =>
          !['browser_request_takeover', 'browser_approval_status', 'browser_upload'].includes(tool.name),
      );
      const value = (name: string, schema: Record<string, unknown>): unknown => {
        if (name.endsWith('ref')) return pick(refs);
        if (name === 'url') return pick(urls);
        if (name === 'key') return pick(['Enter', 'a', 'Tab', 'F13', '', 'Escape', 'é', 'Unidentified']);
        if (name === 'seconds') return pick([0.05, 0.3]);
        if (Array.isArray(schema.enum)) return pick(schema.enum);
        switch (schema.type) {
          case 'boolean':
            return random() < 0.5;
          case 'integer':
            return pick([0, 1, 2, 5, 100]);
          case 'string':
            return pick(['', 'x', 'two', 'hello', 'é😀', '\u0000']);
          case 'array':
            return [value('item', (schema.items ?? {}) as Record<string, unknown>)];
          case 'object':
            return { ref: pick(refs), value: pick(['x', true]) };
        }
        return null;
      };
      // Moving between pages is where a page is caught half-way (an error page being committed, a tab
      // being opened): those tools come up more often than the rest.
      const moving = tools.filter((tool) => MOVING.has(tool.name));
      const wrong: string[] = [];
      for (let i = 0; i < TOOL_CALLS; i++) {
        const tool = pick(random() < 0.4 ? moving : tools);
        const properties = (tool.inputSchema as { properties?: Record<string, Record<string, unknown>> })
          .properties;
        const args: Record<string, unknown> = {};
        for (const [name, schema] of Object.entries(properties ?? {}))
          if (random() < 0.6) args[name] = value(name, schema);
        // A wait with nothing to wait for lasts its whole timeout: bounded here.
        if (tool.name === 'browser_wait_for') args.seconds = value('seconds', {});
        const response = await call(tool.name, args);
        const code = (response.body as { error?: { code?: string } }).error?.code;
        if (response.status !== 200 && !typedError(response.status, code))
          wrong.push(`${tool.name} ${JSON.stringify(args).slice(0, 100)}: ${response.status} ${code}`);
        if (tool.name === 'browser_snapshot' && response.status === 200)
          refs = [...new Set([...(JSON.stringify(response.body).match(/@e\d+/g) ?? []), '@e999'])];
      }
      assert.deepEqual(wrong, []);
      assert.deepEqual(unexpected(gw), []);
    });
  });
});
