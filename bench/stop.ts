/**
 * `npm run bench:stop`: how fast the owner's Stop ends an agent's running call. A real gateway drives
 * the local Chromium; each run an agent navigates to a page whose server never answers, and once that
 * request has reached the server (the call is really in the browser) the owner posts Stop with the
 * operator key. Prints the time from sending Stop to the agent's answer (`session_stopped_by_owner`),
 * p50/p99/max over BENCH_RUNS runs (default 100). The goal is p99 ≤ 500 ms.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { stringify } from 'yaml';
import { startGateway } from '../src/gateway/server.js';
import { createLogger, silentLogger } from '../src/log/logger.js';
import { CHROMIUM } from '../test/helpers/chromium.js';
import { quantile } from './stats.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 100);

async function main(): Promise<void> {
  let arrived: (() => void) | null = null;
  const held = new Set<http.ServerResponse>();
  const site = http.createServer((req, res) => {
    // Never answered: the navigation stays in flight until someone gives up on it.
    held.add(res);
    res.on('close', () => held.delete(res));
    arrived?.();
  });
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;

  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'tabgate-bench-stop-'));
  fs.writeFileSync(
    path.join(home, 'config.yaml'),
    stringify({
      gateway: { host: '127.0.0.1', port: 0 },
      // Each run leaves a request the site never answers; room for many, so a slow release of one
      // never makes the next run wait for a slot.
      browser: { executable_path: CHROMIUM, max_concurrent_actions: 64, max_sessions: 64 },
    }),
  );
  const gateway = await startGateway({
    home,
    env: {},
    log: process.env.BENCH_DEBUG ? createLogger() : silentLogger,
  });
  const agent = { authorization: `Bearer ${gateway.apiKey.key ?? ''}`, 'content-type': 'application/json' };
  const owner = { authorization: `Bearer ${gateway.operatorKey}`, 'content-type': 'application/json' };
  const post = (pathname: string, headers: Record<string, string>, body: unknown = {}) =>
    fetch(gateway.url + pathname, { method: 'POST', headers, body: JSON.stringify(body) });

  const latencies: number[] = [];
  const codes = new Map<string, number>();
  try {
    for (let run = 0; run < RUNS; run++) {
      const created = (await (await post('/v1/sessions', agent, { title: `stop ${run}` })).json()) as {
        session_id: string;
      };
      const id = created.session_id;
      // A first call opens the session's context, so each run measures Stop and not a browser start.
      await post(`/v1/sessions/${id}/tools/browser_navigate`, agent, { url: 'about:blank' });
      const reached = new Promise<void>((resolve) => (arrived = resolve));
      const call = post(`/v1/sessions/${id}/tools/browser_navigate`, agent, {
        url: `${siteUrl}/hang/${run}`,
      });
      await reached;
      const sent = performance.now();
      const answered = call.then(async (response) => {
        const elapsed = performance.now() - sent;
        const body = (await response.json()) as { error?: { code?: string } };
        return { elapsed, code: body.error?.code ?? 'ok' };
      });
      const stop = await post(`/v1/sessions/${id}/stop`, owner);
      if (stop.status !== 200) throw new Error(`stop answered ${stop.status}: ${await stop.text()}`);
      const { elapsed, code } = await answered;
      // The engine still waits for the page it was told to load (it holds one of the browser's action
      // slots meanwhile): end the request, so its wait ends and the next run finds a free slot.
      for (const res of held) res.destroy();
      latencies.push(elapsed);
      codes.set(code, (codes.get(code) ?? 0) + 1);
      await fetch(`${gateway.url}/v1/sessions/${id}`, { method: 'DELETE', headers: agent });
    }
  } finally {
    for (const res of held) res.destroy();
    await gateway.close();
    site.close();
    fs.rmSync(home, { recursive: true, force: true });
  }
  const sorted = [...latencies].sort((a, b) => a - b);
  const ms = (value: number) => `${value.toFixed(1)} ms`;
  console.log(
    `Stop → the agent's running call answered, ${RUNS} runs (local Chromium, navigation in flight)`,
  );
  console.log(
    `  p50 ${ms(quantile(sorted, 0.5))}  p99 ${ms(quantile(sorted, 0.99))}  max ${ms(sorted.at(-1) ?? NaN)}`,
  );
  console.log(`  goal p99 ≤ 500 ms: ${quantile(sorted, 0.99) <= 500 ? 'met' : 'NOT met'}`);
  console.log(`  answers: ${[...codes].map(([code, n]) => `${code} ×${n}`).join(', ')}`);
}

await main();
