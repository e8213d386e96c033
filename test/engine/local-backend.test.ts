/**
 * What only the local Chromium backend promises: a clear error without a browser, idle sessions closed,
 * and no Chromium left behind after SIGTERM, SIGINT or a plain exit of the process that launched it.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { createLocalChromiumBackend } from '../../src/gateway/backends/cdp/index.js';
import type { ToolCall } from '../../src/gateway/backends/backend.js';
import { DEFAULT_BROWSER_SETTINGS } from '../../src/gateway/config/browser-settings.js';
import { silentLogger } from '../../src/log/logger.js';
import type { ResultNotices, SnapshotResult, ToolName } from '../../src/protocol/index.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { waitFor } from '../helpers/wait-for.js';
import { chromiumPidsWith, startExitChild } from './chromium-processes.js';

const call = (
  backend: ReturnType<typeof createLocalChromiumBackend>,
  sessionId: string,
  tool: ToolName,
  args: ToolCall['args'],
) => backend.call({ sessionId, tool, args, toolCallId: null });

describe('local Chromium backend', () => {
  let site: TestSite;
  before(async () => {
    site = await startTestSite();
  });
  after(async () => {
    await site.close();
  });

  it('fails the first call with browser_not_found and install instructions when no Chromium exists', async () => {
    const backend = createLocalChromiumBackend(
      { ...DEFAULT_BROWSER_SETTINGS, executablePath: '/nonexistent/chromium' },
      silentLogger,
    );
    try {
      await assert.rejects(
        call(backend, 's', 'browser_tabs', {}),
        (error: { code?: string; message?: string }) => {
          assert.equal(error.code, 'browser_not_found');
          assert.match(error.message ?? '', /apt-get install chromium/);
          return true;
        },
      );
    } finally {
      await backend.close();
    }
  });

  it('keeps an idle session through browser.inactivity_timeout, then closes it and says so once with session_reset', async () => {
    const marker = `--tabgate-test-marker=${randomUUID()}`;
    const clock = new ManualClock();
    const idleMs = DEFAULT_BROWSER_SETTINGS.inactivityTimeoutSeconds * 1000;
    const backend = createLocalChromiumBackend(
      { ...DEFAULT_BROWSER_SETTINGS, chromiumArgs: [marker] },
      silentLogger,
      { clock },
    );
    try {
      await call(backend, 'idle', 'browser_navigate', { url: site.url('/page2') });
      clock.advance(idleMs);
      const kept = (await call(backend, 'idle', 'browser_snapshot', {})) as SnapshotResult & ResultNotices;
      assert.equal(kept.url, site.url('/page2'));
      assert.equal(kept.notices, undefined);
      // Past the timeout by one sweep (a quarter of it, at most 30 s): the sweep closes the session.
      clock.advance(idleMs + idleMs / 4);
      const after = (await call(backend, 'idle', 'browser_snapshot', {})) as SnapshotResult & ResultNotices;
      assert.equal(after.url, 'about:blank');
      assert.match(after.notices?.[0] ?? '', /^session_reset: .*idle.*about:blank/);
      const next = (await call(backend, 'idle', 'browser_snapshot', {})) as ResultNotices;
      assert.equal(next.notices, undefined);
    } finally {
      await backend.close();
    }
    assert.deepEqual(chromiumPidsWith(marker), []);
  });

  it('answers navigation_timeout for a server that never answers, and the tab takes the next call', async () => {
    // Accepts the request and never sends a byte back: Chromium's Page.navigate waits on it.
    const silent = http.createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const backend = createLocalChromiumBackend(
      { ...DEFAULT_BROWSER_SETTINGS, commandTimeoutSeconds: 10 },
      silentLogger,
    );
    try {
      // The session's browser context is made first, so the timeouts below time the navigation alone.
      await call(backend, 'silent', 'browser_navigate', { url: site.url('/page2') });
      await assert.rejects(
        call(backend, 'silent', 'browser_navigate', { url: `http://127.0.0.1:${port}/never` }),
        (error: { code?: string; message?: string }) => {
          assert.equal(error.code, 'navigation_timeout', error.message);
          assert.match(error.message ?? '', /did not load within 8 s/);
          return true;
        },
      );
      const next = (await call(backend, 'silent', 'browser_navigate', { url: site.url('/form') })) as {
        url: string;
      };
      assert.equal(next.url, site.url('/form'));
    } finally {
      await backend.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('stops a committed page that is still loading when its call is cancelled: the rest never arrives', async () => {
    const heard: string[] = [];
    const dropped: string[] = [];
    const bodies: http.ServerResponse[] = [];
    const trickle = http.createServer((request, response) => {
      heard.push(request.url ?? '');
      if (request.url !== '/trickle') return void response.end();
      request.socket.once('close', () => dropped.push('/trickle'));
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      // The first part puts FIRST in the page, then asks for /parsing from a script: only the parser runs
      // a script, so the request proves FIRST was parsed (an <img> would be fetched by the preload
      // scanner, which reads ahead of the parser, and a cancel then could drop FIRST unparsed). The rest
      // waits for the test.
      response.write(
        `<!doctype html><title>Trickle</title><p>FIRST</p><script>new Image().src = '/parsing'</script>${' '.repeat(2048)}`,
      );
      bodies.push(response);
    });
    await new Promise<void>((resolve) => trickle.listen(0, '127.0.0.1', resolve));
    const { port } = trickle.address() as AddressInfo;
    const backend = createLocalChromiumBackend(DEFAULT_BROWSER_SETTINGS, silentLogger);
    try {
      await call(backend, 'trickle', 'browser_snapshot', {});
      const controller = new AbortController();
      const navigating = backend.call({
        sessionId: 'trickle',
        tool: 'browser_navigate',
        args: { url: `http://127.0.0.1:${port}/trickle` },
        toolCallId: null,
        signal: controller.signal,
      });
      await waitFor(() => heard.includes('/parsing'), {
        what: 'the page to commit and parse its first part',
      });
      controller.abort();
      await assert.rejects(navigating, (error: { code?: string; message?: string }) => {
        assert.equal(error.code, 'call_cancelled', error.message);
        return true;
      });
      await waitFor(() => dropped.length > 0, {
        what: 'the browser to stop reading the page',
        within: 5_000,
      });
      for (const body of bodies) body.end('<p>REST</p><img src="/rest">');
      // Under load the first read can come before the stopped document settles: read until it shows.
      let last = '';
      const page = await waitFor(
        async () => {
          const read = (await call(backend, 'trickle', 'browser_snapshot', {})) as SnapshotResult;
          last = read.snapshot;
          return /FIRST/.test(read.snapshot) ? read : null;
        },
        { what: 'the part delivered before the cancel on the page', within: 5_000 },
      ).catch((error: Error) => assert.fail(`${error.message}; last snapshot: ${JSON.stringify(last)}`));
      assert.doesNotMatch(page.snapshot, /REST/, 'the rest of the page was delivered after the cancel');
      assert.ok(!heard.includes('/rest'), heard.join(' '));
    } finally {
      await backend.close();
      trickle.closeAllConnections();
      await new Promise((resolve) => trickle.close(resolve));
    }
  });

  it('stops the load of a navigation whose call is cancelled: the browser drops the request', async () => {
    const received: http.IncomingMessage[] = [];
    const dropped: string[] = [];
    const silent = http.createServer((request) => {
      received.push(request);
      request.socket.once('close', () => dropped.push(request.url ?? ''));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const { port } = silent.address() as AddressInfo;
    const backend = createLocalChromiumBackend(DEFAULT_BROWSER_SETTINGS, silentLogger);
    try {
      await call(backend, 'cancel', 'browser_navigate', { url: site.url('/page2') });
      const controller = new AbortController();
      const navigating = backend.call({
        sessionId: 'cancel',
        tool: 'browser_navigate',
        args: { url: `http://127.0.0.1:${port}/slow` },
        toolCallId: null,
        signal: controller.signal,
      });
      await waitFor(() => received.length > 0, { what: 'the slow server to get the request' });
      controller.abort();
      await assert.rejects(navigating, (error: { code?: string; message?: string }) => {
        assert.equal(error.code, 'call_cancelled', error.message);
        return true;
      });
      await waitFor(() => dropped.includes('/slow'), {
        what: 'the browser to drop the cancelled request',
        within: 5_000,
      });
      const page = (await call(backend, 'cancel', 'browser_snapshot', {})) as SnapshotResult;
      assert.equal(page.url, site.url('/page2'));
    } finally {
      await backend.close();
      silent.closeAllConnections();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('closeSession and close never throw, even twice or for unknown sessions', async () => {
    const backend = createLocalChromiumBackend(DEFAULT_BROWSER_SETTINGS, silentLogger);
    await backend.closeSession('never-opened');
    await backend.close();
    await backend.close();
  });

  it('leaves no Chromium process behind when the gateway is killed with SIGKILL', async () => {
    const marker = `--tabgate-test-marker=${randomUUID()}`;
    const { child, ready } = startExitChild(marker, site.url('/page2'), 'signal');
    await ready;
    assert.ok(chromiumPidsWith(marker).length > 0, 'the child should have a Chromium running');
    child.kill('SIGKILL'); // no handler runs: only the closed CDP pipe tells Chromium to quit
    await waitFor(() => chromiumPidsWith(marker).length === 0, {
      what: 'Chromium to quit after its gateway was killed',
      within: 15_000,
      every: 100,
    });
  });

  for (const mode of ['SIGTERM', 'SIGINT', 'exit'] as const) {
    it(`leaves no Chromium process behind after ${mode === 'exit' ? 'a plain exit' : mode}`, async () => {
      const marker = `--tabgate-test-marker=${randomUUID()}`;
      const { child, ready, exited } = startExitChild(
        marker,
        site.url('/page2'),
        mode === 'exit' ? 'exit' : 'signal',
      );
      await ready.catch((error: unknown) => {
        if (mode !== 'exit') throw error;
      });
      if (mode !== 'exit') {
        assert.ok(chromiumPidsWith(marker).length > 0, 'the child should have a Chromium running');
        child.kill(mode);
      }
      await exited;
      assert.deepEqual(chromiumPidsWith(marker), []);
    });
  }
});
