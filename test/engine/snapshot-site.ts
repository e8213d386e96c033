/**
 * A fixture for the snapshot suites: small pages of their own on two loopback origins (two ports, so
 * an iframe from the second is cross-origin) and a local Chromium backend with a chosen budget.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLocalChromiumBackend } from '../../src/gateway/backends/cdp/index.js';
import { DEFAULT_BROWSER_SETTINGS } from '../../src/gateway/config/browser-settings.js';
import { silentLogger } from '../../src/log/logger.js';
import { parseToolArguments, type ToolName } from '../../src/protocol/index.js';

export const html = (title: string, body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"><title>${title}</title></head><body>${body}</body></html>`;

async function serve(pages: Record<string, string>): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = http.createServer((request, response) => {
    const page = pages[new URL(request.url ?? '/', 'http://x').pathname];
    response.writeHead(page === undefined ? 404 : 200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(page ?? 'not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export interface SnapshotSite {
  url(path: string): string;
  /** The second origin, for cross-origin iframes. */
  otherUrl(path: string): string;
  call(tool: ToolName, args?: Record<string, unknown>): Promise<unknown>;
  close(): Promise<void>;
}

/** `pages(otherOrigin)` gives the pages of the first origin; `otherPages` those of the second. */
export async function startSnapshotSite(
  pages: (otherOrigin: string) => Record<string, string>,
  options: { snapshotMaxChars?: number; otherPages?: Record<string, string> } = {},
): Promise<SnapshotSite> {
  const other = await serve(options.otherPages ?? {});
  const main = await serve(pages(other.origin));
  const backend = createLocalChromiumBackend(
    { ...DEFAULT_BROWSER_SETTINGS, snapshotMaxChars: options.snapshotMaxChars ?? 15_000 },
    silentLogger,
  );
  return {
    url: (path) => main.origin + path,
    otherUrl: (path) => other.origin + path,
    call: async (tool, args = {}) =>
      backend.call({ sessionId: 'snapshot', tool, args: parseToolArguments(tool, args), toolCallId: null }),
    async close() {
      await backend.close();
      await Promise.all([main.close(), other.close()]);
    },
  };
}
