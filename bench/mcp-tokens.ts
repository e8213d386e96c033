/**
 * What the tool list costs an MCP client before any work is done: the `tools/list` result of tabgate
 * and of Playwright MCP, measured side by side in one run (tokens ≈ characters / 4). Target: at most 2,500, and under half of Playwright MCP's.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { MCP_TOOLS } from '../src/gateway/mcp/mcp-server.js';
import { CHROMIUM } from '../test/helpers/chromium.js';

const tokens = (value: unknown) => Math.round(JSON.stringify(value).length / 4);

async function playwrightMcpTools(): Promise<unknown[]> {
  const outDir = mkdtempSync(path.join(os.tmpdir(), 'pw-mcp-'));
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      'node_modules/@playwright/mcp/cli.js',
      '--headless',
      '--executable-path',
      CHROMIUM,
      '--isolated',
      '--no-sandbox',
      '--output-dir',
      outDir,
    ],
    stderr: 'pipe',
  });
  const client = new Client({ name: 'tabgate-bench', version: '0.0.0' });
  try {
    await client.connect(transport);
    return (await client.listTools()).tools;
  } finally {
    await client.close();
    rmSync(outDir, { recursive: true, force: true });
  }
}

const ours = { tools: MCP_TOOLS };
const theirs = { tools: await playwrightMcpTools() };
const rows = [
  ['server', 'tools', 'tokens (chars/4)', 'vs Playwright MCP'],
  [
    'tabgate',
    String(ours.tools.length),
    String(tokens(ours)),
    (tokens(ours) / tokens(theirs)).toFixed(2) + '×',
  ],
  ['@playwright/mcp', String(theirs.tools.length), String(tokens(theirs)), '1.00×'],
];
console.log('MCP tools/list cost (target: tabgate at most 2,500 tokens, under half of Playwright MCP)');
for (const row of rows) console.log(row.map((cell, i) => cell.padEnd(i === 0 ? 18 : 18)).join(''));
if (tokens(ours) > 2500 || tokens(ours) * 2 >= tokens(theirs)) {
  console.error(`tabgate's tool list costs ${tokens(ours)} tokens, over the budget`);
  process.exitCode = 1;
}
