/**
 * `npm run bench:dashboard`: what the dashboard costs and how fast it follows the agents. A real gateway
 * drives the local Chromium; SESSIONS agents (default 10) act at once (navigate, then clicks), each
 * action answered over HTTP, while each session's live view is open in a dashboard tab of its own (its
 * stream, `GET /v1/dashboard/events?session=ID` with the operator key, is the one sent that session's
 * actions). For each action: from the agent's answer to the dashboard's `action` event saying it ended
 * (0 when the event came first). Then the page itself, in headless Chromium signed in through the
 * one-time link: the time from opening it to its first render of the sessions list, and the bundle's
 * gzipped size.
 * Goals: p50 ≤ 250 ms, p99 ≤ 1 s; first render ≤ 500 ms; bundle ≤ 150 KB gzipped.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { stringify } from 'yaml';
import { startGateway } from '../src/gateway/server.js';
import { silentLogger } from '../src/log/logger.js';
import { CHROMIUM, launchPlaywrightChromium } from '../test/helpers/chromium.js';
import { quantile } from './stats.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10);
const ACTIONS = Number(process.env.BENCH_ACTIONS ?? 20);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const PAGE = `<!doctype html><title>Bench</title><button id="b" onclick="this.textContent='clicked '+Date.now()">Press</button>`;

/** Per session, the agent's answers and the dashboard's end events, paired in order. */
class Pairing {
  private readonly answers = new Map<string, number[]>();
  private readonly events = new Map<string, number[]>();
  readonly latencies: number[] = [];

  answer(session: string, at: number): void {
    this.match(session, this.answers, this.events, at, (answer, event) => event - answer);
  }

  event(session: string, at: number): void {
    this.match(session, this.events, this.answers, at, (event, answer) => event - answer);
  }

  private match(
    session: string,
    mine: Map<string, number[]>,
    theirs: Map<string, number[]>,
    at: number,
    latency: (mine: number, theirs: number) => number,
  ): void {
    const waiting = theirs.get(session);
    const other = waiting?.shift();
    if (other === undefined) {
      mine.set(session, [...(mine.get(session) ?? []), at]);
      return;
    }
    this.latencies.push(Math.max(0, latency(at, other)));
  }
}

/**
 * Opens a dashboard tab's event stream; once the gateway holds it, returns its reading (`done`), which
 * tells `onEnded` each action that ended, as it arrives. (Wrapped: an async function returning the
 * promise itself would wait for it.)
 */
async function follow(
  url: string,
  key: string,
  onEnded: (session: string) => void,
  signal: AbortSignal,
): Promise<{ done: Promise<void> }> {
  const response = await fetch(url, { headers: { authorization: `Bearer ${key}` }, signal });
  if (!response.body) throw new Error(`the stream answered ${response.status}`);
  return { done: read(response.body, onEnded, signal) };
}

async function read(
  body: ReadableStream<Uint8Array>,
  onEnded: (session: string) => void,
  signal: AbortSignal,
) {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (!/^event: action$/m.test(block)) continue;
        const data = /^data: (.*)$/m.exec(block)?.[1];
        const entry = data ? (JSON.parse(data) as { session_id: string; outcome: string | null }) : null;
        if (entry?.outcome) onEnded(entry.session_id);
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  }
}

async function main(): Promise<void> {
  const site = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}/`;
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tabgate-bench-dashboard-'));
  fs.writeFileSync(
    path.join(home, 'config.yaml'),
    stringify({ gateway: { host: '127.0.0.1', port: 0 }, browser: { executable_path: CHROMIUM } }),
  );
  const gateway = await startGateway({ home, env: {}, log: silentLogger });
  const agent = { authorization: `Bearer ${gateway.apiKey.key ?? ''}`, 'content-type': 'application/json' };
  const post = async (pathname: string, body: unknown) => {
    const response = await fetch(gateway.url + pathname, {
      method: 'POST',
      headers: agent,
      body: JSON.stringify(body),
    });
    return (await response.json()) as Record<string, unknown>;
  };
  const pairing = new Pairing();
  const streaming = new AbortController();
  let render = NaN;
  try {
    const ids = await Promise.all(
      Array.from({ length: SESSIONS }, async (_, i) =>
        String((await post('/v1/sessions', { title: `agent ${i}` })).session_id),
      ),
    );
    const streams = await Promise.all(
      ids.map((id) =>
        follow(
          `${gateway.url}/v1/dashboard/events?session=${encodeURIComponent(id)}`,
          gateway.operatorKey,
          (session) => pairing.event(session, performance.now()),
          streaming.signal,
        ),
      ),
    );
    await Promise.all(
      ids.map(async (id) => {
        const act = async (tool: string, args: unknown) => {
          const answered = await post(`/v1/sessions/${id}/tools/${tool}`, args);
          pairing.answer(id, performance.now());
          return answered;
        };
        const page = (await act('browser_navigate', { url: siteUrl })) as {
          result?: { snapshot?: { snapshot?: string } };
        };
        const ref = /button "Press" (@e\d+)/.exec(page.result?.snapshot?.snapshot ?? '')?.[1] ?? '@e1';
        for (let i = 1; i < ACTIONS; i++) await act('browser_click', { ref });
      }),
    );
    // The last events may still be on their way.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    streaming.abort();
    await Promise.all(streams.map((stream) => stream.done));

    const browser = await launchPlaywrightChromium();
    try {
      const tab = await browser.newPage();
      await tab.goto(gateway.signInLink('/'));
      await tab.locator('table.list tbody tr').first().waitFor();
      // The owner opening the dashboard again, signed in: the page, its bundle, and its first data.
      const started = performance.now();
      await tab.goto(`${gateway.url}/#/sessions`);
      await tab.locator('table.list tbody tr').first().waitFor();
      render = performance.now() - started;
    } finally {
      await browser.close();
    }
  } finally {
    streaming.abort();
    await gateway.close();
    site.close();
    fs.rmSync(home, { recursive: true, force: true });
  }

  const sorted = [...pairing.latencies].sort((a, b) => a - b);
  const asset = (name: string) =>
    gzipSync(fs.readFileSync(path.join(root, 'dist', 'dashboard', name))).length;
  const bundle = asset('app.js') + asset('app.css');
  const ms = (value: number) => `${value.toFixed(0)} ms`;
  const verdict = (ok: boolean) => (ok ? 'met' : 'NOT met');
  const rows: [string, string, string, string][] = [
    [
      `agent's answer → dashboard event, p50 (${sorted.length} actions, ${SESSIONS} sessions at once)`,
      ms(quantile(sorted, 0.5)),
      '≤ 250 ms',
      verdict(quantile(sorted, 0.5) <= 250),
    ],
    [
      "agent's answer → dashboard event, p99",
      ms(quantile(sorted, 0.99)),
      '≤ 1000 ms',
      verdict(quantile(sorted, 0.99) <= 1000),
    ],
    [
      'first render of the sessions list (signed in: open → first row)',
      ms(render),
      '≤ 500 ms',
      verdict(render <= 500),
    ],
    [
      'bundle, gzipped (app.js + app.css)',
      `${(bundle / 1024).toFixed(1)} KB`,
      '≤ 150 KB',
      verdict(bundle <= 150 * 1024),
    ],
  ];
  const width = Math.max(...rows.map((r) => r[0].length));
  console.log(`${'measure'.padEnd(width)}  value      goal       verdict`);
  for (const [what, value, goal, ok] of rows)
    console.log(`${what.padEnd(width)}  ${value.padEnd(9)}  ${goal.padEnd(9)}  ${ok}`);
  if (sorted.length < SESSIONS * ACTIONS)
    console.log(
      `note: ${SESSIONS * ACTIONS - sorted.length} actions got no dashboard event (a resync, or a lost row)`,
    );
}

await main();
