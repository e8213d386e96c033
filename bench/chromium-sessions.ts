/**
 * `npm run bench:sessions`: what the local Chromium costs to start and per session opened, with
 * tabgate's command line against Chromium's own defaults, side by side in one run. Both sides are the
 * product's local backend opening sessions with `browser_navigate` to a test-site page; on the
 * defaults side Chromium is started through a wrapper that drops the `--disable-features` switch
 * (`DISABLED_FEATURES` of chromium-process.ts), so that switch is the only difference. Measured over
 * every process of the browser (it and every process below it): CPU time used and PSS, once the browser
 * is up with one session and again after BENCH_SESSIONS more, each after a pause that lets the
 * browser settle. BENCH_ROUNDS rounds (default 2), sides alternated; medians.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLocalChromiumBackend } from '../src/gateway/backends/cdp/index.js';
import { DEFAULT_BROWSER_SETTINGS } from '../src/gateway/config/browser-settings.js';
import { silentLogger } from '../src/log/logger.js';
import { chromiumTree } from '../test/engine/chromium-processes.js';
import { CHROMIUM } from '../test/helpers/chromium.js';
import { cpuMsOf, pssOf } from '../test/helpers/processes.js';
import { startTestSite, type TestSite } from '../test/testserver/server.js';
import { median } from './stats.js';

const SESSIONS = Number(process.env.BENCH_SESSIONS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SETTLE_MS = Number(process.env.BENCH_SETTLE_MS ?? 3000);

interface Usage {
  cpuMs: number;
  pssMb: number;
  processes: number;
}

interface Sample {
  start: Usage;
  perSession: Usage;
}

/** What the browser started with `marker` uses now: it and every process below it. */
function browserUsage(marker: string): Usage {
  const tree = chromiumTree(marker);
  if (tree.length === 0) throw new Error('the browser process was not found');
  return {
    cpuMs: tree.reduce((sum, pid) => sum + cpuMsOf(pid), 0),
    pssMb: tree.reduce((sum, pid) => sum + pssOf(pid), 0) / (1 << 20),
    processes: tree.length,
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

/** A Chromium that runs with every switch it is given but `--disable-features`. */
function wrapperWithoutDisabledFeatures(dir: string): string {
  const wrapper = path.join(dir, 'chromium-defaults');
  fs.writeFileSync(
    wrapper,
    [
      '#!/bin/sh',
      'n=$#',
      'for arg in "$@"; do',
      '  case "$arg" in --disable-features=*) ;; *) set -- "$@" "$arg" ;; esac',
      'done',
      'shift "$n"',
      `exec ${JSON.stringify(CHROMIUM)} "$@"`,
      '',
    ].join('\n'),
    { mode: 0o700 },
  );
  return wrapper;
}

async function measure(site: TestSite, executablePath: string): Promise<Sample> {
  const marker = `--tabgate-bench-marker=${randomUUID()}`;
  const backend = createLocalChromiumBackend(
    { ...DEFAULT_BROWSER_SETTINGS, executablePath, chromiumArgs: [marker], maxSessions: SESSIONS + 1 },
    silentLogger,
  );
  const open = (sessionId: string) =>
    backend.call({
      sessionId,
      tool: 'browser_navigate',
      args: { url: site.url('/page2') },
      toolCallId: null,
    });
  try {
    await open('first');
    await settle();
    const start = browserUsage(marker);
    for (let i = 0; i < SESSIONS; i++) await open(`session-${i}`);
    await settle();
    const after = browserUsage(marker);
    return {
      start,
      perSession: {
        cpuMs: (after.cpuMs - start.cpuMs) / SESSIONS,
        pssMb: (after.pssMb - start.pssMb) / SESSIONS,
        processes: (after.processes - start.processes) / SESSIONS,
      },
    };
  } finally {
    await backend.close();
  }
}

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tabgate-bench-sessions-'));
  const site = await startTestSite();
  const sides = { defaults: [] as Sample[], tabgate: [] as Sample[] };
  try {
    const defaults = wrapperWithoutDisabledFeatures(dir);
    for (let round = 0; round < ROUNDS; round++) {
      // Alternated, so a slow spell of the machine falls on both sides alike.
      if (round % 2 === 0) {
        sides.defaults.push(await measure(site, defaults));
        sides.tabgate.push(await measure(site, CHROMIUM));
      } else {
        sides.tabgate.push(await measure(site, CHROMIUM));
        sides.defaults.push(await measure(site, defaults));
      }
    }
  } finally {
    await site.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
  const rows: [string, (sample: Sample) => number, number][] = [
    ['CPU to start, with one session (ms)', (s) => s.start.cpuMs, 0],
    ['memory at start, with one session (MB PSS)', (s) => s.start.pssMb, 0],
    ['processes at start, with one session', (s) => s.start.processes, 0],
    ['CPU per session opened (ms)', (s) => s.perSession.cpuMs, 0],
    ['memory per session opened (MB PSS)', (s) => s.perSession.pssMb, 1],
    ['processes per session opened', (s) => s.perSession.processes, 1],
  ];
  console.log(
    `local Chromium, ${SESSIONS} sessions opened after the first, median of ${ROUNDS} rounds per side`,
  );
  console.log('| measure | Chromium defaults | tabgate | ratio |');
  console.log('|---|---:|---:|---:|');
  for (const [label, read, digits] of rows) {
    const before = median(sides.defaults.map(read));
    const now = median(sides.tabgate.map(read));
    console.log(
      `| ${label} | ${before.toFixed(digits)} | ${now.toFixed(digits)} | ${(now / before).toFixed(2)}× |`,
    );
  }
}

await main();
