/**
 * Floods of sockets without a credential, from every loopback source a local process can bind
 * (127.0.0.2 … 127.0.0.101), against a gateway in its own process. Half-sent requests are closed by the
 * headers timeout; idle sockets past the unauthenticated caps are closed oldest first, so the owner's
 * calls keep being answered while they are held (their latency is printed, never asserted). Bounded:
 * 300 half-sent, 3,000 idle. Full (SOAK=1): 3,000 half-sent, 15,000 idle (the test process holds them
 * all, within its open-file limit).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { DEFAULT_CONNECTION_LIMITS } from '../../src/gateway/config/schema.js';
import { makeHome } from '../gateway/fixtures/gateway.js';
import { startChildGateway, type ChildGateway } from './fixtures/child-gateway.js';
import { waitFor } from '../helpers/wait-for.js';
import { freshRequest, openSockets } from './fixtures/raw-sockets.js';
import { percentile, scaled } from './fixtures/scale.js';

const HALF_SENT = scaled(300, 3000);
const IDLE = scaled(3000, 15_000);
const OWNER_CALLS = scaled(60, 300);

async function withGateway(limits: Record<string, number>, run: (gw: ChildGateway) => Promise<void>) {
  const home = makeHome();
  const gw = await startChildGateway({
    home,
    config: { gateway: { host: '127.0.0.1', port: 0, limits } },
  });
  try {
    await run(gw);
  } finally {
    await gw.stop();
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
  }
}

const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms`;
};

describe('a flood of sockets without a credential', () => {
  it(`closes ${HALF_SENT} half-sent requests at the headers timeout`, async () => {
    // Caps far above the flood, so only the timeout can close these sockets.
    await withGateway(
      { headers_timeout: 1, max_unauthenticated: 100_000, max_unauthenticated_per_peer: 100_000 },
      async (gw) => {
        const started = Date.now();
        const held = await openSockets({
          port: gw.port,
          count: HALF_SENT,
          send: `POST /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\nX-Slow: `,
        });
        const allClosed = await waitFor(() => held.every((h) => h.closed), {
          what: 'every half-sent request to be closed',
          within: 30_000,
          every: 50,
        }).catch(() => false);
        console.log(
          `flood: ${held.filter((h) => h.closed).length}/${HALF_SENT} half-sent requests closed ` +
            `${((Date.now() - started) / 1000).toFixed(1)} s after the first (headers timeout 1 s)`,
        );
        for (const h of held) h.socket.destroy();
        assert.ok(allClosed, 'every half-sent request is closed');
      },
    );
  });

  it('serves an agent that opens 300 connections at once, before any of them has sent its request', async () => {
    // The default caps: an agent starting 300 sessions at once (the admission burst) opens a socket per
    // call from loopback, and none has proved its key yet when the last is accepted.
    await withGateway({}, async (gw) => {
      const held = await openSockets({ port: gw.port, count: 300, batch: 300 });
      // The gateway accepts in arrival order: once a call on a later connection is answered, it has
      // accepted (and counted) all 300.
      const later = await freshRequest(gw.url, {
        method: 'GET',
        path: '/v1/sessions',
        headers: { authorization: `Bearer ${gw.key}` },
      });
      assert.equal(later.status, 200);
      const statuses = await Promise.all(
        held.map(
          (h) =>
            new Promise<string>((resolve) => {
              const { socket } = h;
              if (h.closed) return resolve('closed before sending');
              let head = '';
              socket.on('data', (chunk: Buffer) => {
                head += chunk.toString('latin1');
                const line = /^HTTP\/1\.1 (\d{3})/.exec(head);
                if (line) resolve(line[1] ?? '');
              });
              socket.once('close', () => resolve(head ? head.slice(0, 12) : 'closed'));
              socket.write(
                `GET /v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:${gw.port}\r\n` +
                  `Authorization: Bearer ${gw.key}\r\nConnection: close\r\n\r\n`,
              );
            }),
        ),
      );
      for (const h of held) h.socket.destroy();
      assert.deepEqual(
        statuses.filter((status) => status !== '200'),
        [],
      );
    });
  });

  it(`keeps answering the owner while ${IDLE} idle sockets are opened and held`, async () => {
    // The default caps; a headers timeout long enough that only the caps close sockets here.
    await withGateway({ headers_timeout: 300 }, async (gw) => {
      const created = await gw.request('POST', '/v1/sessions', {});
      const sessionId = (created.body as { session_id: string }).session_id;
      const ownerCall = (i: number) =>
        freshRequest(gw.url, {
          method: 'POST',
          path: `/v1/sessions/${sessionId}/tools/browser_navigate`,
          headers: { authorization: `Bearer ${gw.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ url: `https://owner.example/${i}` }),
        });
      const calls = async (n: number) => {
        const out: { status: number; ms: number }[] = [];
        for (let i = 0; i < n; i++) out.push(await ownerCall(i));
        return out;
      };

      const quiet = await calls(OWNER_CALLS);
      // The owner calls while the flood is being opened (once it passed the caps), then while held.
      const during: Promise<{ status: number; ms: number }[]>[] = [];
      const held = await openSockets({
        port: gw.port,
        count: IDLE,
        onBatch: (opened) => {
          if (opened >= DEFAULT_CONNECTION_LIMITS.max_unauthenticated && during.length === 0)
            during.push(calls(OWNER_CALLS));
        },
      });
      const flooding = (await Promise.all(during)).flat();
      const holding = await calls(OWNER_CALLS);
      const mostClosed = await waitFor(
        () => held.filter((h) => !h.closed).length <= DEFAULT_CONNECTION_LIMITS.max_unauthenticated,
        { what: 'the idle flood sockets to be closed', within: 30_000, every: 50 },
      ).catch(() => false);
      const open = held.filter((h) => !h.closed).length;
      console.log(
        `flood: owner's calls on fresh connections — quiet: ${summary(quiet.map((c) => c.ms))}; ` +
          `while ${IDLE} idle sockets were opened: ${summary(flooding.map((c) => c.ms))}; ` +
          `while held: ${summary(holding.map((c) => c.ms))}; flood sockets still open: ${open}, ` +
          `gateway RSS ${(gw.rssBytes() / 1e6).toFixed(0)} MB`,
      );
      for (const h of held) h.socket.destroy();
      const failed = [...quiet, ...flooding, ...holding].filter((c) => c.status !== 200);
      assert.deepEqual(failed, []);
      assert.equal(flooding.length, OWNER_CALLS);
      assert.ok(
        mostClosed,
        `at most ${DEFAULT_CONNECTION_LIMITS.max_unauthenticated} idle sockets stay open`,
      );
    });
  });
});
