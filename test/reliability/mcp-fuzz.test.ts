/**
 * Random JSON-RPC on both MCP doors: `tabgate mcp --gateway` over stdio (a child process, as an MCP
 * client runs it) and the gateway's streamable HTTP endpoint. Messages come in bursts: requests with
 * every kind of id, every MCP method and made-up ones, random params, tool calls with random names and
 * arguments, notifications, cancellations, batches, lines that are not JSON. Each well-formed request
 * (JSON-RPC 2.0, a string or integer id, params absent or an object) is answered exactly once with its
 * own id; every line `tabgate mcp` writes is JSON; it stays up and writes no stack trace; the endpoint
 * never answers 5xx; the gateway logs no unexpected error; and a client that connects afterwards is
 * served. Bounded: 300 messages each. Full (SOAK=1): 4,000.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { TOOLS } from '../../src/protocol/index.js';
import { startTestGateway, type TestGateway } from '../gateway/fixtures/gateway.js';
import { RecordingBackend } from '../gateway/fixtures/recording-backend.js';
import { waitFor } from '../helpers/wait-for.js';
import { rawRequest } from '../security/fixtures.js';
import { randomJson, type JsonShape } from './fixtures/random-json.js';
import { picker, scaled, SEED, seededRandom } from './fixtures/scale.js';

const MESSAGES = scaled(300, 4_000);
const BURST = 12;
const BIN = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'tabgate.js');
const PROTOCOL_VERSION = '2025-06-18';

const random = seededRandom(SEED);
const pick = picker(random);
const text = (max: number) =>
  Array.from({ length: Math.floor(random() * max) }, () =>
    String.fromCharCode(pick([32 + Math.floor(random() * 95), 0, 10, 0xe9, 0x2028, 0xd800, 0xfeff])),
  ).join('');

const PARAMS_JSON: JsonShape = {
  maxDepth: 3,
  leafBelow: 0.35,
  arrayBelow: 0.55,
  maxKeys: 5,
  leaf: () => pick([null, true, false, 0, -1, 1.5, 2 ** 53 + 1, '', 'x', text(10), 'http://127.0.0.1:9/']),
  key: () =>
    pick([
      'name',
      'arguments',
      'url',
      'ref',
      'cursor',
      'level',
      '_meta',
      'progressToken',
      '__proto__',
      text(6),
    ]),
};

const METHODS = [
  'tools/call',
  'tools/call',
  'tools/call',
  'tools/list',
  'ping',
  'initialize',
  'resources/list',
  'prompts/list',
  'logging/setLevel',
  'completion/complete',
  'tools/nope',
  '',
];
const NOTIFICATIONS = [
  'notifications/initialized',
  'notifications/cancelled',
  'notifications/progress',
  'nope',
];
const TOOL_NAMES = [...TOOLS.map((tool) => tool.name), 'browser_nope', '', 'x'.repeat(300), '__proto__'];

let ids = 0;
/** A fresh id: an integer, or a string of any shape (long, a line break, unicode, empty, numeric). */
function freshId(): string | number {
  const n = ++ids;
  return pick<string | number>([
    n,
    -n,
    `id-${n}`,
    `${n}\n${n}`,
    `${n}${'x'.repeat(300)}`,
    `é😀${n}`,
    ` ${n} `,
    String(n),
  ]);
}

function paramsFor(method: string): unknown {
  const roll = random();
  if (roll < 0.1) return randomJson(random, PARAMS_JSON);
  if (roll < 0.15) return undefined;
  if (method === 'tools/call')
    return {
      name: pick(TOOL_NAMES),
      arguments: random() < 0.5 ? randomJson(random, PARAMS_JSON) : { url: 'about:blank', ref: '@e1' },
      ...(random() < 0.2 ? { _meta: { progressToken: freshId() } } : {}),
    };
  if (method === 'initialize')
    return {
      protocolVersion: pick([PROTOCOL_VERSION, '1999-01-01', '']),
      capabilities: {},
      clientInfo: { name: 'f', version: '0' },
    };
  if (method === 'logging/setLevel') return { level: pick(['debug', 'info', 'nope']) };
  return random() < 0.5 ? {} : { cursor: text(5) };
}

interface Draw {
  /** What goes on the wire: one JSON-RPC message, a batch, or text that is not JSON. */
  body: string;
  /** The ids of the well-formed requests in it, JSON-encoded: each must be answered exactly once. */
  expect: string[];
}

function message(): { value: unknown; expect?: string } {
  const roll = random();
  if (roll < 0.12) {
    // Notifications answer nothing; a cancellation names a request that was never made.
    const method = pick(NOTIFICATIONS);
    const params =
      method === 'notifications/cancelled'
        ? { requestId: `gone-${++ids}`, reason: text(8) }
        : paramsFor(method);
    return { value: { jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) } };
  }
  if (roll < 0.2) return { value: randomJson(random, PARAMS_JSON) };
  const id = random() < 0.9 ? freshId() : pick([null, 1.5, { a: 1 }, [1], true]);
  const method = random() < 0.95 ? pick(METHODS) : pick([7, null, ['tools/list']]);
  const jsonrpc = random() < 0.93 ? '2.0' : pick(['1.0', 2, undefined]);
  const params = paramsFor(String(method));
  const value = { jsonrpc, id, method, ...(params === undefined ? {} : { params }) };
  const wellFormed =
    jsonrpc === '2.0' &&
    (typeof id === 'string' || Number.isInteger(id)) &&
    typeof method === 'string' &&
    (params === undefined || (typeof params === 'object' && params !== null && !Array.isArray(params)));
  return { value, ...(wellFormed ? { expect: JSON.stringify(id) } : {}) };
}

function draw(allowBatch: boolean): Draw {
  const roll = random();
  if (roll < 0.06)
    return {
      body: pick(['{', 'not json', '[]', '""', 'null', '{"jsonrpc":"2.0"', text(30) || 'x']),
      expect: [],
    };
  // MCP has no batches since 2025-06-18: a batch is refused as a whole, so nothing in it is expected.
  if (allowBatch && roll < 0.1)
    return { body: JSON.stringify([message().value, message().value]), expect: [] };
  const { value, expect } = message();
  return { body: JSON.stringify(value), expect: expect ? [expect] : [] };
}

const initialize = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: {
      protocolVersion: PROTOCOL_VERSION,
      capabilities: {},
      clientInfo: { name: 'fuzz', version: '0' },
    },
  });
const initialized = JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' });
const tabsCall = (id: number) =>
  JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'browser_tabs', arguments: {} },
  });

/** Counts answers by id; `wrong` collects what no answer may be. */
class Answers {
  readonly byId = new Map<string, number>();
  readonly wrong: string[] = [];
  last: Record<string, unknown> | null = null;

  take(value: unknown): void {
    for (const answer of Array.isArray(value) ? value : [value]) {
      const a = answer as Record<string, unknown> | null;
      if (typeof a !== 'object' || a === null || a.jsonrpc !== '2.0') {
        this.wrong.push(`not a JSON-RPC message: ${JSON.stringify(answer).slice(0, 120)}`);
        continue;
      }
      // A request of the server's own (none is expected) or a notification (progress, logging).
      if (!('result' in a) && !('error' in a)) continue;
      this.last = a;
      if (a.id === null || a.id === undefined) continue;
      const key = JSON.stringify(a.id);
      this.byId.set(key, (this.byId.get(key) ?? 0) + 1);
    }
  }

  /** Ids answered more than once, expected or not. */
  twice(): string[] {
    return [...this.byId].filter(([, n]) => n > 1).map(([id, n]) => `${id.slice(0, 40)}: ${n}`);
  }

  /** The expected ids not answered exactly once. */
  missing(expected: readonly string[]): string[] {
    return expected
      .filter((id) => this.byId.get(id) !== 1)
      .map((id) => `${id.slice(0, 40)}: ${this.byId.get(id) ?? 0}`);
  }
}

const unexpected = (gw: TestGateway) =>
  gw.logLines.filter((line) => /unexpected error|browser call failed/.test(line));

describe('random JSON-RPC on both MCP doors', () => {
  let gw: TestGateway;
  before(async () => {
    gw = await startTestGateway({ backend: new RecordingBackend() });
  });
  after(() => gw.close());

  it('tabgate mcp over stdio answers each well-formed request once and stays up', async () => {
    const sessionId = await gw.createSession('mcp fuzz');
    const child: ChildProcessWithoutNullStreams = spawn(
      process.execPath,
      [BIN, 'mcp', '--gateway', gw.url, '--session', sessionId],
      { env: { ...process.env, TABGATE_HOME: gw.home } },
    );
    const answers = new Answers();
    let stderr = '';
    let buffered = '';
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8')));
    child.stdout.on('data', (data: Buffer) => {
      buffered += data.toString('utf8');
      for (let at = buffered.indexOf('\n'); at !== -1; at = buffered.indexOf('\n')) {
        const line = buffered.slice(0, at);
        buffered = buffered.slice(at + 1);
        try {
          answers.take(JSON.parse(line));
        } catch {
          answers.wrong.push(`a line that is not JSON: ${line.slice(0, 120)}`);
        }
      }
    });
    try {
      child.stdin.write(initialize(0) + '\n' + initialized + '\n');
      const expected: string[] = ['0'];
      for (let sent = 0; sent < MESSAGES;) {
        const burst: string[] = [];
        for (let i = 0; i < BURST && sent < MESSAGES; i++, sent++) {
          const next = draw(true);
          // One message per line: a body with a line break in it is two lines (both are fuzz anyway).
          burst.push(next.body.replace(/\n/g, ' '));
          if (!next.body.includes('\n')) expected.push(...next.expect);
        }
        child.stdin.write(burst.join('\n') + '\n');
        await waitFor(() => answers.missing(expected).length === 0 || undefined, {
          what: 'every well-formed request answered',
          within: 15_000,
        }).catch(() => undefined);
      }
      assert.deepEqual(answers.missing(expected).slice(0, 10), []);
      assert.deepEqual(answers.twice().slice(0, 10), []);
      assert.deepEqual(answers.wrong.slice(0, 10), []);
      // Still serving: a plain call goes through the gateway.
      child.stdin.write(tabsCall(1e9) + '\n');
      await waitFor(() => answers.byId.get('1000000000') === 1 || undefined, {
        what: 'the last call',
        within: 10_000,
      });
      assert.equal(child.exitCode, null);
      assert.ok(
        answers.last && 'result' in answers.last && !(answers.last.result as { isError?: boolean }).isError,
      );
      assert.doesNotMatch(stderr, /RangeError|TypeError|ReferenceError|\n\s+at /);
    } finally {
      child.kill();
    }
    assert.deepEqual(unexpected(gw), []);
  });

  it('the HTTP endpoint answers each well-formed request once, never with a 5xx', async () => {
    const headers = {
      authorization: `Bearer ${gw.key}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    };
    const opened = await rawRequest(gw.url, { method: 'POST', path: '/mcp', headers, body: initialize(0) });
    assert.equal(opened.status, 200, opened.text);
    const session = String(opened.headers['mcp-session-id']);
    const withSession = { ...headers, 'mcp-session-id': session, 'mcp-protocol-version': PROTOCOL_VERSION };
    await rawRequest(gw.url, { method: 'POST', path: '/mcp', headers: withSession, body: initialized });
    const answers = new Answers();
    const expected: string[] = [];
    const wrong: string[] = [];
    for (let sent = 0; sent < MESSAGES; sent++) {
      const next = draw(false);
      // Now and then the wrong session, or none: refused whole, so nothing in it is expected.
      const roll = random();
      const sessionHeaders =
        roll < 0.05 ? { ...headers, 'mcp-session-id': 'nope' } : roll < 0.08 ? headers : withSession;
      const response = await rawRequest(gw.url, {
        method: 'POST',
        path: '/mcp',
        headers: sessionHeaders,
        body: next.body,
      });
      if (response.status >= 500)
        wrong.push(`${next.body.slice(0, 80)}: ${response.status} ${response.text.slice(0, 120)}`);
      // A request is answered as JSON or as one server-sent event; a notification with 202 and no body.
      const bodies = /text\/event-stream/.test(String(response.headers['content-type']))
        ? response.text
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => line.slice(6))
        : response.text
          ? [response.text]
          : [];
      const messages: unknown[] = [];
      for (const body of bodies) {
        try {
          messages.push(JSON.parse(body));
        } catch {
          wrong.push(`not JSON: ${body.slice(0, 120)}`);
        }
      }
      for (const message of messages) answers.take(message);
      // Each POST has its own answer: a request the endpoint refuses whole (a second initialize, params
      // that do not fit MCP's schema) is answered by a 4xx carrying a JSON-RPC error without an id.
      const [only] = messages as ({ id?: unknown; error?: unknown } | null)[];
      const refusedWhole =
        response.status >= 400 &&
        response.status < 500 &&
        messages.length === 1 &&
        only?.id === null &&
        !!only.error;
      if (sessionHeaders === withSession && !refusedWhole) expected.push(...next.expect);
    }
    assert.deepEqual(wrong.slice(0, 10), []);
    assert.deepEqual(answers.wrong.slice(0, 10), []);
    assert.deepEqual(answers.missing(expected).slice(0, 10), []);
    assert.deepEqual(answers.twice().slice(0, 10), []);
    // A client that connects afterwards is served.
    const transport = new StreamableHTTPClientTransport(new URL(gw.url + '/mcp'), {
      requestInit: { headers: { authorization: `Bearer ${gw.key}` } },
    });
    const client = new Client({ name: 'after-fuzz', version: '0.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'browser_tabs'));
    } finally {
      await client.close();
    }
    assert.deepEqual(unexpected(gw), []);
  });
});
