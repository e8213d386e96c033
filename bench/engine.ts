/**
 * `npm run bench:engine`: tabgate's engine (local Chromium backend, in process) side by side with
 * @playwright/mcp (its stdio MCP server, same Chromium binary) on local pages of the test site. Prints
 * snapshot size and time, navigate time, and click / type round trips, with the ratios to the targets:
 * snapshot ≤ 0.5× Playwright MCP's characters with every interactive element reachable; actions ≤ 0.8×.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { createLocalChromiumBackend } from '../src/gateway/backends/cdp/index.js';
import type { ToolCall } from '../src/gateway/backends/backend.js';
import { DEFAULT_BROWSER_SETTINGS } from '../src/gateway/config/browser-settings.js';
import { silentLogger } from '../src/log/logger.js';
import type { NavigateResult, SnapshotResult, ToolName } from '../src/protocol/index.js';
import { CHROMIUM } from '../test/helpers/chromium.js';
import { startTestSite } from '../test/testserver/server.js';
import { measureActions, type ActionDriver } from './engine-actions.js';
import { measureGoals } from './engine-goals.js';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PAGES = {
  'small form': '/form',
  '5,000-element table': '/table',
  'long article': '/article',
  iframes: '/frames',
  'link-heavy page': '/snap/links',
};

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;
async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const start = performance.now();
  const value = await work();
  return [value, performance.now() - start];
}

interface Driver extends ActionDriver {
  navigate(url: string): Promise<void>;
  snapshot(): Promise<{ chars: number; refs: number; text: string }>;
  click(label: string): Promise<void>;
  type(label: string, text: string): Promise<void>;
  close(): Promise<void>;
}

async function tabgateDriver(
  uploadFile: string,
): Promise<Driver & { call: (tool: ToolName, args: ToolCall['args']) => Promise<unknown> }> {
  const backend = createLocalChromiumBackend(
    { ...DEFAULT_BROWSER_SETTINGS, snapshotMaxChars: 15_000, uploadRoots: [path.dirname(uploadFile)] },
    silentLogger,
  );
  const call = (tool: ToolName, args: ToolCall['args']) =>
    backend.call({ sessionId: 'bench', tool, args, toolCallId: null });
  let last = '';
  const refFor = (label: string) => new RegExp(`${label} (@e\\d+)`).exec(last)?.[1] ?? '';
  return {
    call,
    uploadFile,
    raw: (name, args) => call(name as ToolName, args),
    ref: (label) => (typeof label === 'string' ? refFor(label) : (label.exec(last)?.[1] ?? '')),
    async navigate(url) {
      last = ((await call('browser_navigate', { url })) as NavigateResult).snapshot?.snapshot ?? '';
    },
    async snapshot() {
      // The whole compact snapshot, every page of it, is what we compare.
      let page = (await call('browser_snapshot', {})) as SnapshotResult;
      let text = page.snapshot;
      while (page.next_offset !== null) {
        page = (await call('browser_snapshot', { offset: page.next_offset })) as SnapshotResult;
        text += page.snapshot;
      }
      last = text;
      // Everything the agent reads: boundaries, the first answer's outline and the paging notes too.
      return { chars: text.length, refs: page.ref_count, text };
    },
    async click(label) {
      await call('browser_click', { ref: refFor(label) });
    },
    async type(label, text) {
      await call('browser_type', { ref: refFor(label), text });
    },
    close: () => backend.close(),
  };
}

async function playwrightDriver(outputDir: string, uploadFile: string): Promise<Driver> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    stderr: 'ignore',
    args: [
      'node_modules/@playwright/mcp/cli.js',
      '--headless',
      '--executable-path',
      CHROMIUM,
      '--isolated',
      '--no-sandbox',
      '--output-dir',
      outputDir,
    ],
  });
  const client = new Client({ name: 'tabgate-bench', version: '0.0.1' });
  await client.connect(transport);
  const tool = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as {
      content: { type: string; text?: string }[];
      isError?: boolean;
    };
    const text = result.content.map((part) => part.text ?? '').join('\n');
    // A failed call is not timed as if it had done the work.
    if (result.isError) throw new Error(`playwright-mcp ${name}: ${text.slice(0, 300)}`);
    return text;
  };
  let last = '';
  const refFor = (label: string) => new RegExp(`${label} \\[ref=(\\w+)\\]`).exec(last)?.[1] ?? '';
  return {
    uploadFile,
    raw: tool,
    ref: (label) => (typeof label === 'string' ? refFor(label) : (label.exec(last)?.[1] ?? '')),
    async navigate(url) {
      // Its navigate writes the snapshot to a file; refs are read from the snapshot call that follows.
      await tool('browser_navigate', { url });
    },
    async snapshot() {
      const text = await tool('browser_snapshot', {});
      last = text;
      const yaml = /```yaml\n([\s\S]*?)```/.exec(text)?.[1] ?? text;
      return { chars: yaml.length, refs: (yaml.match(/\[ref=\w+\]/g) ?? []).length, text: yaml };
    },
    async click(label) {
      await tool('browser_click', { element: label, target: refFor(label) });
    },
    async type(label, text) {
      await tool('browser_type', { element: label, target: refFor(label), text });
    },
    close: () => client.close(),
  };
}

interface Row {
  page: string;
  metric: string;
  ours: number;
  theirs: number;
  unit: string;
  target?: number;
}

async function measure(driver: Driver, url: (p: string) => string) {
  const out: Record<string, { navigate: number; snapshot: number; chars: number; refs: number }> = {};
  for (const [name, pagePath] of Object.entries(PAGES)) {
    const navs: number[] = [];
    const snaps: number[] = [];
    let chars = 0;
    let refs = 0;
    for (let i = 0; i < RUNS; i++) {
      navs.push((await timed(() => driver.navigate(url(pagePath))))[1]);
      const [snap, ms] = await timed(() => driver.snapshot());
      snaps.push(ms);
      chars = snap.chars;
      refs = snap.refs;
    }
    out[name] = { navigate: median(navs), snapshot: median(snaps), chars, refs };
  }
  await driver.navigate(url('/form'));
  await driver.snapshot();
  const clicks: number[] = [];
  const types: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    clicks.push((await timed(() => driver.click('button "Check trust"')))[1]);
    types.push((await timed(() => driver.type('textbox "Your name"', `Alice ${i}`)))[1]);
  }
  return { pages: out, click: median(clicks), type: median(types) };
}

const site = await startTestSite();
const outputDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tabgate-bench-'));
// One small file both may upload: it sits in tabgate's upload root and in Playwright MCP's output folder.
const uploadFile = path.join(outputDir, 'upload.txt');
fs.writeFileSync(uploadFile, 'tabgate bench upload\n');
const ours = await tabgateDriver(uploadFile);
const theirs = await playwrightDriver(outputDir, uploadFile);
try {
  await ours.navigate('about:blank');
  await theirs.navigate('about:blank');
  const a = await measure(ours, (p) => site.url(p));
  const b = await measure(theirs, (p) => site.url(p));
  const rows: Row[] = [];
  for (const name of Object.keys(PAGES)) {
    const x = a.pages[name];
    const y = b.pages[name];
    if (!x || !y) continue;
    rows.push({
      page: name,
      metric: 'snapshot size',
      ours: x.chars,
      theirs: y.chars,
      unit: 'chars',
      target: 0.5,
    });
    rows.push({ page: name, metric: 'refs in snapshot', ours: x.refs, theirs: y.refs, unit: 'refs' });
    rows.push({ page: name, metric: 'snapshot time', ours: x.snapshot, theirs: y.snapshot, unit: 'ms' });
    rows.push({ page: name, metric: 'navigate time', ours: x.navigate, theirs: y.navigate, unit: 'ms' });
  }
  rows.push({
    page: 'small form',
    metric: 'click round trip',
    ours: a.click,
    theirs: b.click,
    unit: 'ms',
    target: 0.8,
  });
  rows.push({
    page: 'small form',
    metric: 'type round trip',
    ours: a.type,
    theirs: b.type,
    unit: 'ms',
    target: 0.8,
  });
  const fmt = (value: number, unit: string) => (unit === 'ms' ? value.toFixed(1) : String(Math.round(value)));
  console.log(`\ntabgate engine vs @playwright/mcp — median of ${RUNS} runs, ${CHROMIUM}\n`);
  console.log('| page | metric | tabgate | playwright-mcp | ratio | target |');
  console.log('|---|---|---:|---:|---:|---|');
  for (const row of rows) {
    const ratio = row.theirs > 0 ? row.ours / row.theirs : NaN;
    const verdict =
      row.target === undefined ? '' : `≤ ${row.target}× ${ratio <= row.target ? 'met' : 'MISSED'}`;
    console.log(
      `| ${row.page} | ${row.metric} (${row.unit}) | ${fmt(row.ours, row.unit)} | ${fmt(row.theirs, row.unit)} | ${ratio.toFixed(2)} | ${verdict} |`,
    );
  }
  await measureActions({ ours, theirs, url: (p) => site.url(p), runs: RUNS });
  await measureGoals({ ours, theirs, site, runs: RUNS });
} finally {
  await ours.close();
  await theirs.close();
  await site.close();
  fs.rmSync(outputDir, { recursive: true, force: true, maxRetries: 10 });
}
