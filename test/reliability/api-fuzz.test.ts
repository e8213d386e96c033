/**
 * Random input on every door an agent reaches: every route of the route table, under every kind of
 * credential, with random bodies, path parameters, queries and content types; and every tool with random
 * arguments on a real page in the local Chromium (forms, dialogs, a dead link, a download, a popup),
 * and on pages that navigate by themselves while the calls run.
 * Each answer is a result or an error of the error table with that error's status, never
 * `internal_error`, and the gateway logs no unexpected error. Bounded: 12 requests per route and
 * credential, 100 tool calls one at a time, 100 four at a time and 100 on the restless pages. Full
 * (SOAK=1): 100 and 1,500 of each.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { rawRequest } from '../security/fixtures.js';
import { randomJson, type JsonShape } from './fixtures/random-json.js';
import { picker, scaled, SEED, seededRandom } from './fixtures/scale.js';
import { fuzzTools, startFuzzSite, typedError, type FuzzSite } from './fixtures/tool-fuzz.js';

const REQUESTS_PER_ROUTE = scaled(12, 100);
const TOOL_CALLS = scaled(100, 1_500);
const RESTLESS_CALLS = scaled(100, 1_500);

const random = seededRandom(SEED);
const pick = picker(random);
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

  /** Random tool calls on the local Chromium, on a fuzz site of their own (tool-fuzz.ts). */
  function toolsOn(title: string, site: { restless?: boolean }, widths: number[], calls: number): void {
    describe(title, () => {
      let gw: TestGateway;
      let fuzzSite: FuzzSite;
      before(async () => {
        fuzzSite = await startFuzzSite(site);
        gw = await startTestGateway({ config: { browser: { extension_control: { enabled: false } } } });
      });
      after(async () => {
        await gw.close();
        await fuzzSite.close();
      });

      it('answers a result or a typed error, never internal_error', async () => {
        const sessionId = await gw.createSession();
        const call = (tool: string, args: unknown) =>
          gw.request('POST', `/v1/sessions/${sessionId}/tools/${tool}`, { body: args });
        await call('browser_navigate', { url: `${fuzzSite.base}/` });
        for (const width of widths) {
          const run = await fuzzTools({ random, base: fuzzSite.base, calls, width, call });
          assert.deepEqual(run.wrong, [], `${width} at a time`);
        }
        assert.deepEqual(unexpected(gw), []);
      });
    });
  }

  // One at a time, then sent together as an agent's parallel calls are.
  toolsOn('every tool on a real page', {}, [1, 4], TOOL_CALLS);
  toolsOn('every tool on a page that navigates by itself', { restless: true }, [1], RESTLESS_CALLS);
});
