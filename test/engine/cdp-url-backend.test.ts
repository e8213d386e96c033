/**
 * The engine on someone else's browser through a CDP URL (what `browser.cdp_url` and the providers use):
 * http URLs are resolved through /json/version, private addresses are refused unless allowed, and
 * closing only disconnects.
 */
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { WebSocketServer } from 'ws';
import { createCdpUrlBackend } from '../../src/gateway/backends/cdp/index.js';
import { DEFAULT_BROWSER_SETTINGS } from '../../src/gateway/config/browser-settings.js';
import { silentLogger } from '../../src/log/logger.js';
import { launchChromium, type LocalChromium } from '../helpers/chromium.js';
import { startTestSite, type TestSite } from '../testserver/server.js';

describe('CDP URL backend', () => {
  let site: TestSite;
  // A browser someone else started, with a DevTools port (tabgate's own launches use a pipe).
  let chromium: LocalChromium;
  let httpUrl: string;
  before(async () => {
    site = await startTestSite();
    chromium = await launchChromium();
    httpUrl = chromium.httpEndpoint;
  });
  after(async () => {
    chromium.kill();
    await site.close();
  });

  it('refuses private addresses on a remote browser with private_url_blocked', async () => {
    const backend = createCdpUrlBackend({ cdpUrl: httpUrl }, DEFAULT_BROWSER_SETTINGS, silentLogger);
    try {
      await assert.rejects(
        backend.call({
          sessionId: 's',
          tool: 'browser_navigate',
          args: { url: site.url('/page2') },
          toolCallId: null,
        }),
        { code: 'private_url_blocked' },
      );
    } finally {
      await backend.close();
    }
  });

  it('browses through an http CDP URL when private addresses are allowed, and close leaves the browser running', async () => {
    const backend = createCdpUrlBackend(
      { cdpUrl: httpUrl },
      { ...DEFAULT_BROWSER_SETTINGS, allowPrivateUrls: true },
      silentLogger,
    );
    try {
      const result = await backend.call({
        sessionId: 's',
        tool: 'browser_navigate',
        args: { url: site.url('/page2') },
        toolCallId: null,
      });
      assert.equal(result.title, 'Page two');
    } finally {
      await backend.close();
    }
    const version = await fetch(`${httpUrl}/json/version`);
    assert.equal(version.status, 200);
  });

  it('refuses to drive a browser that does not let it intercept requests, with backend_unavailable', async () => {
    // A DevTools endpoint that answers everything but Fetch.enable, as a locked-down provider might.
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    const methods: string[] = [];
    server.on('connection', (socket) =>
      socket.on('message', (data: Buffer) => {
        const { id, method } = JSON.parse(data.toString()) as { id: number; method: string };
        methods.push(method);
        const error = { code: -32601, message: `'${method}' wasn't found` };
        socket.send(JSON.stringify(method === 'Fetch.enable' ? { id, error } : { id, result: {} }));
      }),
    );
    const { port } = server.address() as AddressInfo;
    const backend = createCdpUrlBackend(
      { cdpUrl: `ws://127.0.0.1:${port}/devtools/browser/x` },
      DEFAULT_BROWSER_SETTINGS,
      silentLogger,
    );
    try {
      await assert.rejects(
        backend.call({ sessionId: 's', tool: 'browser_tabs', args: {}, toolCallId: null }),
        { code: 'backend_unavailable' },
      );
      assert.ok(!methods.includes('Target.createBrowserContext'), methods.join(', '));
    } finally {
      await backend.close();
      server.close();
    }
  });

  it('fails with backend_unavailable when nothing answers at the CDP URL', async () => {
    const backend = createCdpUrlBackend(
      { cdpUrl: 'http://127.0.0.1:9' },
      DEFAULT_BROWSER_SETTINGS,
      silentLogger,
    );
    try {
      await assert.rejects(
        backend.call({ sessionId: 's', tool: 'browser_tabs', args: {}, toolCallId: null }),
        { code: 'backend_unavailable' },
      );
    } finally {
      await backend.close();
    }
  });
});
