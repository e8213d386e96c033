/**
 * The conformance harness of the user's own tab (conformance-1, -2 and -3.e2e.test.ts run the suite's
 * parts on it): the real gateway (extension control on), the real extension in a self-spawned headless
 * Chromium, paired through the CLI path. Each case's session is a gateway session with a fresh tab
 * shared to it, and every call goes through `POST /v1/sessions/{id}/tools/...`, so the whole path runs:
 * gateway, broker, socket, extension, engine over chrome.debugger.
 */
import { rmSync } from 'node:fs';
import { SNAPSHOT_MAX_CHARS } from '../../src/extension/background/executor.js';
import { onTestSite, type ConformanceHarness, type ConformanceSession } from '../conformance/harness.js';
import {
  callTool,
  LOOPBACK_TEST_SITES,
  startStage,
  status,
  waitFor,
  type Stage,
} from './fixtures/paired-setup.js';
import { tempDir } from '../helpers/temp-dir.js';

// Approvals are tested in test/security/approvals*; here the tools' behaviour is, so none are asked
// for (on the user's tab a dialog accepted would otherwise be refused until the extension can ask).
/** The gateway reads the files of an upload to the user's tab from here (browser.upload_roots). */
const UPLOAD_ROOT = tempDir('ext-conformance-uploads');
/** browser.download_max_mb: the cap the download cases check, as on the local browser. */
const DOWNLOAD_MAX_MB = 1;
const CONFIG = {
  browser: {
    upload_roots: [UPLOAD_ROOT],
    download_max_mb: DOWNLOAD_MAX_MB,
    extension_control: { enabled: true, command_timeout: 30 },
  },
  safety: { ...LOOPBACK_TEST_SITES, approvals: { user_tab: 'none' } },
};

class ToolError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** The tab's viewport height once the "started debugging this browser" banner shows, when seen. */
let bannerHeight: number | null = null;

/**
 * Waits for the debugging banner that chrome.debugger's attach brings: it shrinks the tab's viewport
 * (713 → 657 px here) some 50 ms after the share, later under load, and a case that aims a click just
 * before would press where the element no longer is. The user's own tab has the same race in the first
 * moments of a share; these cases test the steady state after it.
 */
async function waitForBanner(stage: Stage, targetId: string): Promise<void> {
  const { sessionId } = await stage.browser.cdp.send<{ sessionId: string }>('Target.attachToTarget', {
    targetId,
    flatten: true,
  });
  try {
    const height = () => stage.browser.cdp.evaluate<number>(sessionId, 'innerHeight');
    const first = await height();
    let last = first;
    let stableSince = performance.now();
    for (const started = performance.now(); performance.now() - started < 3000;) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      const now = await height();
      if (now !== last) [last, stableSince] = [now, performance.now()];
      if (bannerHeight !== null ? last === bannerHeight : performance.now() - stableSince >= 300) break;
    }
    if (last < first) bannerHeight = last;
  } finally {
    await stage.browser.cdp.send('Target.detachFromTarget', { sessionId }).catch(() => undefined);
  }
}

async function shareFreshTab(stage: Stage, n: number): Promise<ConformanceSession> {
  // A blank tab with nothing attached to it but the extension's debugger.
  const { targetId } = await stage.browser.cdp.send<{ targetId: string }>('Target.createTarget', {
    url: 'about:blank',
  });
  const tabId = await waitFor('the tab to exist', () =>
    stage.browser.tabIdOfTarget(targetId).catch(() => null),
  );
  const sessionId = await stage.gw.createSession(`conformance ${n}`);
  await stage.browser.ask({ type: 'share', session_id: sessionId, title: `conformance ${n}`, tab_id: tabId });
  await waitFor(
    'the controller to connect',
    async () => (await status(stage.browser)).connection.state === 'connected',
  ).catch(async (error: Error) => {
    // What the popup would show says why (offline with a code, stopped, idle): keep it with the failure.
    throw new Error(
      `${error.message}; connection: ${JSON.stringify((await status(stage.browser)).connection)}`,
    );
  });
  await waitForBanner(stage, targetId);
  return {
    async call(tool, args = {}) {
      const response: { status: number; body: unknown } = await callTool(stage, sessionId, tool, args);
      const { status: httpStatus, body } = response;
      if (httpStatus === 200) return (body as { result: unknown }).result;
      const error = (body as { error?: { code?: string; controller_code?: string; message?: string } }).error;
      // The protocol keeps `controller_rejected` for anything the controller refuses; the extension's own
      // code (stale_ref, tab_not_found, …) rides along as controller_code, and that precise reason is what
      // an agent acts on, so it is the code the cases expect.
      const code = error?.controller_code ?? error?.code ?? `http_${httpStatus}`;
      throw new ToolError(code, error?.message ?? JSON.stringify(body));
    },
    async close() {
      const view = await status(stage.browser);
      await stage.browser.ask({ type: 'stop' });
      for (const id of view.share?.tab_ids ?? []) {
        await stage.browser.cdp
          .evaluate(stage.browser.popup, `chrome.tabs.remove(${id}).catch(() => undefined)`)
          .catch(() => undefined);
      }
      await stage.browser.cdp.send('Target.closeTarget', { targetId }).catch(() => undefined);
      await stage.gw.request('DELETE', `/v1/sessions/${sessionId}`);
    },
  };
}

export async function extensionHarness(): Promise<ConformanceHarness> {
  const stage = await startStage({ config: CONFIG });
  let sessions = 0;
  return {
    ...onTestSite(stage.site, SNAPSHOT_MAX_CHARS),
    newSession: () => shareFreshTab(stage, ++sessions),
    limits: {
      sharedCookies:
        "the user's own browser profile has one cookie jar; a share lends a tab of it, not a new profile",
      refusedTools: {
        tools: ['browser_console', 'browser_get_images'],
        code: 'controller_unavailable',
        reason: 'outside the browser-control allowlist, so the gateway never sends them to a controller',
      },
      renamedCodes: {
        metadata_url_blocked: {
          code: 'controller_unavailable',
          reason:
            'docs/protocol.md "Routing a browser_* call" rule 4: the gateway refuses it as unsafe arguments before dispatch',
        },
      },
    },
    // Downloads on the user's tab land in the gateway's folder for the session, under the same cap.
    files: { uploadRoot: UPLOAD_ROOT, downloadMaxBytes: DOWNLOAD_MAX_MB * 1024 * 1024 },
    // No crashBrowser: killing the user's own browser is not something tabgate does or can recover from.
    close: async () => {
      await stage.close();
      rmSync(UPLOAD_ROOT, { recursive: true, force: true });
    },
  };
}
