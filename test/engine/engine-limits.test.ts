/**
 * The limits the engine answers with a typed error instead of hanging or flooding the agent: a call the
 * page keeps from finishing ends with `command_timeout` at `browser.command_timeout`, and a screenshot
 * over the size cap is refused with `screenshot_too_large` rather than sent.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { createLocalChromiumBackend } from '../../src/gateway/backends/cdp/index.js';
import type { ToolCall } from '../../src/gateway/backends/backend.js';
import { DEFAULT_BROWSER_SETTINGS } from '../../src/gateway/config/browser-settings.js';
import { silentLogger } from '../../src/log/logger.js';
import type { SnapshotResult, ToolName } from '../../src/protocol/index.js';

const PAGES: Record<string, string> = {
  // A click whose handler never returns: the renderer is busy for good.
  '/busy': '<title>Busy</title><button onclick="for (;;) {}">Freeze</button>',
  // Random pixels do not compress: a full-page PNG of this is far over the 8 MB cap.
  '/noise': `<title>Noise</title><style>body{margin:0}</style><canvas width="1280" height="3200"></canvas>
    <script>
      const canvas = document.querySelector('canvas');
      const context = canvas.getContext('2d');
      const image = context.createImageData(canvas.width, canvas.height);
      const words = new Uint32Array(image.data.buffer);
      let seed = 12345;
      for (let i = 0; i < words.length; i++) {
        seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
        words[i] = seed | 0xff000000;
      }
      context.putImageData(image, 0, 0);
    </script>`,
};

describe('engine limits', () => {
  let server: http.Server;
  let base: string;
  before(async () => {
    server = http.createServer((request, response) => {
      const page = PAGES[request.url ?? ''];
      response.writeHead(page ? 200 : 404, { 'content-type': 'text/html' });
      response.end(page ?? 'not found');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const session = (backend: ReturnType<typeof createLocalChromiumBackend>, sessionId: string) => ({
    call: (tool: ToolName, args: ToolCall['args']) =>
      backend.call({ sessionId, tool, args, toolCallId: null }),
  });
  const rejectsWith = (code: string) => (error: { code?: string; message?: string }) => {
    assert.equal(error.code, code, error.message);
    return true;
  };

  it('ends a click the page never lets finish with command_timeout', async () => {
    const backend = createLocalChromiumBackend(
      { ...DEFAULT_BROWSER_SETTINGS, commandTimeoutSeconds: 8 },
      silentLogger,
    );
    try {
      const { call } = session(backend, 'busy');
      await call('browser_navigate', { url: `${base}/busy` });
      const snapshot = (await call('browser_snapshot', {})) as SnapshotResult;
      const ref = /button "Freeze" @(e\d+)/.exec(snapshot.snapshot)?.[1];
      assert.ok(ref, snapshot.snapshot);
      await assert.rejects(call('browser_click', { ref }), (error: { code?: string; message?: string }) => {
        assert.equal(error.code, 'command_timeout', error.message);
        assert.match(error.message ?? '', /browser_click did not finish within 8 s/);
        return true;
      });
    } finally {
      await backend.close();
    }
  });

  it('refuses a screenshot over the size cap with screenshot_too_large, and still takes a small one', async () => {
    const backend = createLocalChromiumBackend(DEFAULT_BROWSER_SETTINGS, silentLogger);
    try {
      const { call } = session(backend, 'noise');
      await call('browser_navigate', { url: `${base}/noise` });
      await assert.rejects(
        call('browser_screenshot', { full_page: true, format: 'png' }),
        rejectsWith('screenshot_too_large'),
      );
      const small = (await call('browser_screenshot', { format: 'jpeg', quality: 30 })) as { data?: string };
      assert.ok((small.data ?? '').length > 0);
    } finally {
      await backend.close();
    }
  });
});
