/**
 * Frame fuzzer: random and mutated frames over a real controller socket into a gateway in its own
 * process, with agent calls interleaved. The gateway must not crash, its memory must stay bounded,
 * every well-formed heartbeat must be answered exactly once, every agent call must get its own result,
 * and the socket limits (garbage, oversize) must close only the offending socket.
 * Bounded: 5,000 frames. Full (SOAK=1): 100,000 frames.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { WebSocket } from 'ws';
import { FRAME_METHODS, MAX_FRAME_BYTES, parseFrame } from '../../src/protocol/index.js';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { callTool } from './fixtures/agent.js';
import { startChildGateway, type ChildGateway } from './fixtures/child-gateway.js';
import { echoOf, ResilientController } from './fixtures/resilient-controller.js';
import { randomJson, type JsonShape } from './fixtures/random-json.js';
import { picker, scaled, SEED, seededRandom } from './fixtures/scale.js';

const FRAMES = scaled(5_000, 100_000);
const CALL_EVERY = 250;
const SYNC_EVERY = 500;
/** Growth of the gateway's resident memory allowed between warm-up and the end of the run. */
const MEMORY_BOUND_BYTES = 128 * 1024 * 1024;

const random = seededRandom(SEED);
const pick = picker(random);
const randomString = (max: number) =>
  Array.from({ length: Math.floor(random() * max) }, () =>
    String.fromCharCode(32 + Math.floor(random() * 95)),
  ).join('');

const FRAME_JSON: JsonShape = {
  maxDepth: 4,
  leafBelow: 0.3,
  arrayBelow: 0.6,
  maxKeys: 5,
  leaf: () => pick([null, true, false, 0, -1, 1e308, 'x', '', randomString(20)]),
  key: () =>
    pick(['method', 'params', 'command_id', 'ok', 'nonce', '__proto__', 'constructor', randomString(8)]),
};

/** Flips, drops or inserts printable characters, so the text stays valid UTF-8. */
function mutate(text: string): string {
  const chars = [...text];
  for (let i = 0; i < 1 + Math.floor(random() * 4); i++) {
    const at = Math.floor(random() * chars.length);
    const roll = random();
    if (roll < 0.33) chars.splice(at, 1);
    else if (roll < 0.66) chars.splice(at, 0, String.fromCharCode(32 + Math.floor(random() * 95)));
    else chars[at] = pick(['"', '{', '}', ',', ':', '1', 'x', '[', ']']);
  }
  return chars.join('');
}

let nonceCounter = 0;
function heartbeat(): string {
  const variant = random();
  const nonce = `fz-${nonceCounter++}`;
  if (variant < 0.8) return JSON.stringify({ method: FRAME_METHODS.heartbeat, params: { nonce } });
  if (variant < 0.85) return JSON.stringify({ method: FRAME_METHODS.heartbeat, params: { nonce, ok: true } });
  if (variant < 0.9)
    return JSON.stringify({ method: FRAME_METHODS.heartbeat, params: { nonce: 'n'.repeat(129) } });
  if (variant < 0.95) return JSON.stringify({ method: FRAME_METHODS.heartbeat, params: [nonce] });
  return JSON.stringify({ method: FRAME_METHODS.heartbeat, params: { nonce, extra: { deep: [1, 2, 3] } } });
}

function fuzzFrame(): string | Buffer {
  const roll = random();
  if (roll < 0.35) return heartbeat();
  if (roll < 0.5)
    return JSON.stringify({
      method: FRAME_METHODS.result,
      params: {
        command_id: pick(['', 'f'.repeat(32), randomString(40), '0'.repeat(32)]),
        ok: pick([true, 'true', 1, null, undefined]),
        result: randomJson(random, FRAME_JSON),
      },
    });
  if (roll < 0.6) return JSON.stringify(randomJson(random, FRAME_JSON));
  if (roll < 0.7)
    return Buffer.from(Array.from({ length: Math.floor(random() * 64) }, () => Math.floor(random() * 256)));
  if (roll < 0.8)
    return JSON.stringify({
      method: pick([FRAME_METHODS.command, FRAME_METHODS.cancel, 'browser.controller.nope']),
      params: randomJson(random, FRAME_JSON),
    });
  return mutate(heartbeat());
}

describe(`frame fuzzer: ${FRAMES} random and mutated frames`, () => {
  const home = makeHome();
  let gw: ChildGateway;
  let controller: ResilientController;
  let sessionId = '';
  const expectedAcks = new Map<string, number>();
  const acks = new Map<string, number>();
  const callResults: { url: string; outcome: string; echo: unknown }[] = [];
  let rssWarm = 0;
  let rssEnd = 0;
  let sync: ((nonce: string) => void) | null = null;

  /** Waits until the gateway answered everything sent so far (frames are handled in order). */
  const roundTrip = async (label: string) => {
    const nonce = `sync-${label}`;
    const seen = new Promise<void>((resolve) => (sync = (n) => n === nonce && resolve()));
    controller.send({ method: FRAME_METHODS.heartbeat, params: { nonce } });
    await seen;
  };

  before(async () => {
    gw = await startChildGateway({ home });
    sessionId = String(
      ((await gw.request('POST', '/v1/sessions', {})).body as { session_id: string }).session_id,
    );
    controller = new ResilientController({
      baseUrl: gw.url,
      key: gw.key,
      sessionId,
      controllerId: 'fuzzed',
      onFrame: (frame) => {
        if (frame.method !== FRAME_METHODS.heartbeat) return;
        const nonce = String(frame.params.nonce);
        if (nonce.startsWith('sync-')) return sync?.(nonce);
        if (!nonce.startsWith('server-keepalive')) acks.set(nonce, (acks.get(nonce) ?? 0) + 1);
      },
    });
    await controller.start();
    const calls: Promise<void>[] = [];
    for (let i = 0; i < FRAMES; i++) {
      const frame = fuzzFrame();
      if (typeof frame === 'string') {
        const parsed = parseFrame(frame);
        // A well-formed detach would end the controller's lane: the fuzzer never sends one.
        if (parsed?.method === FRAME_METHODS.detach) continue;
        if (parsed?.method === FRAME_METHODS.heartbeat && parsed.params.ok !== true)
          expectedAcks.set(parsed.params.nonce, (expectedAcks.get(parsed.params.nonce) ?? 0) + 1);
        assert.ok(controller.send(frame), 'the controller socket stayed open');
      } else {
        assert.ok(controller.ws, 'the controller socket stayed open');
        controller.ws.send(frame, { binary: true });
      }
      if (i % CALL_EVERY === 0) {
        const url = `https://fuzz.example/${i}`;
        calls.push(
          callTool({
            baseUrl: gw.url,
            key: gw.key,
            sessionId,
            tool: 'browser_navigate',
            args: { url },
            guardMs: 10_000,
          }).then((o) => void callResults.push({ url, outcome: o.outcome, echo: o.result })),
        );
      }
      if (i % SYNC_EVERY === SYNC_EVERY - 1) await roundTrip(String(i));
      if (i === Math.floor(FRAMES / 10)) rssWarm = gw.rssBytes();
    }
    await roundTrip('end');
    await Promise.all(calls);
    rssEnd = gw.rssBytes();
    console.log(
      `fuzz: ${FRAMES} frames, ${[...expectedAcks.values()].reduce((a, b) => a + b, 0)} well-formed heartbeats, ` +
        `${callResults.length} calls, gateway RSS ${(rssWarm / 1e6).toFixed(1)} MB → ${(rssEnd / 1e6).toFixed(1)} MB`,
    );
  });

  after(async () => {
    await controller.stop();
    await gw.stop();
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
  });

  it('answers every well-formed heartbeat exactly once and nothing else', () => {
    const wrong = [...new Set([...expectedAcks.keys(), ...acks.keys()])].filter(
      (nonce) => (expectedAcks.get(nonce) ?? 0) !== (acks.get(nonce) ?? 0),
    );
    assert.deepEqual(wrong.slice(0, 10), []);
  });

  it('answers every agent call with its own result while the socket is fuzzed', () => {
    assert.equal(callResults.length, Math.ceil(FRAMES / CALL_EVERY));
    for (const { url, outcome, echo } of callResults) {
      assert.equal(outcome, 'ok');
      assert.equal(echoOf(echo).echo_url, url);
    }
    assert.equal(controller.connects, 1, 'the fuzzed socket was never closed');
  });

  it('keeps the gateway alive with bounded memory', async () => {
    assert.equal(gw.child.exitCode, null);
    assert.equal((await gw.request('GET', '/v1/sessions')).status, 200);
    assert.ok(rssEnd - rssWarm < MEMORY_BOUND_BYTES, `RSS grew by ${rssEnd - rssWarm} bytes`);
  });

  const freshController = async (controllerId: string) => {
    const created = await gw.request('POST', '/v1/sessions', {});
    const session = String((created.body as { session_id: string }).session_id);
    const fresh = new ResilientController({
      baseUrl: gw.url,
      key: gw.key,
      sessionId: session,
      controllerId,
      reconnect: false,
    });
    await fresh.start();
    return fresh.ws as WebSocket;
  };

  it('closes a socket that sends only garbage with 1008, and only that socket', async () => {
    const ws = await freshController('garbage');
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    for (let i = 0; i < 64; i++) ws.send(`not json ${i}`);
    assert.equal(await closed, 1008);
    assert.equal(controller.connected, true);
  });

  it('closes a socket that sends a frame over 8 MiB with 1009', async () => {
    const ws = await freshController('big');
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    ws.send('x'.repeat(MAX_FRAME_BYTES + 1));
    assert.equal(await closed, 1009);
    assert.equal((await gw.request('GET', '/v1/sessions')).status, 200);
  });
});
