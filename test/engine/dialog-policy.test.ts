/** browser.dialog_policy accept/dismiss keep the old behaviour: dialogs answered at once, with a notice. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createLocalChromiumBackend } from '../../src/gateway/backends/cdp/index.js';
import { DEFAULT_BROWSER_SETTINGS } from '../../src/gateway/config/browser-settings.js';
import { silentLogger } from '../../src/log/logger.js';
import { parseToolArguments, type ToolName } from '../../src/protocol/index.js';
import { startTestSite, type TestSite } from '../testserver/server.js';

describe('browser.dialog_policy', () => {
  let site: TestSite;
  const backends: ReturnType<typeof createLocalChromiumBackend>[] = [];
  before(async () => {
    site = await startTestSite();
  });
  after(async () => {
    for (const backend of backends) await backend.close();
    await site.close();
  });

  const session = (policy: 'accept' | 'dismiss', dialogTimeoutSeconds = 60) => {
    const backend = createLocalChromiumBackend(
      { ...DEFAULT_BROWSER_SETTINGS, dialogPolicy: policy, dialogTimeoutSeconds },
      silentLogger,
    );
    backends.push(backend);
    return (tool: string, args: Record<string, unknown> = {}) =>
      backend.call({
        sessionId: policy,
        tool: tool as ToolName,
        args: parseToolArguments(tool as ToolName, args),
        toolCallId: null,
      }) as Promise<Record<string, unknown>>;
  };

  for (const [policy, outcome] of [
    ['dismiss', '3 files'],
    ['accept', 'deleted'],
  ] as const) {
    it(`${policy} answers a confirm at once and says so in a notice`, async () => {
      const call = session(policy);
      const opened = await call('browser_navigate', { url: site.url('/tasks/dialogs') });
      const text = (opened.snapshot as { snapshot: string }).snapshot;
      const ref = /button "Delete" (@e\d+)/.exec(text)?.[1];
      const clicked = await call('browser_click', { ref });
      assert.equal(clicked.dialog, undefined);
      assert.deepEqual(clicked.notices, [
        `A confirm dialog "Delete 3 files?" was ${policy === 'accept' ? 'accepted' : 'dismissed'} automatically.`,
      ]);
      const after = await call('browser_snapshot', { full: true });
      assert.match(after.snapshot as string, new RegExp(outcome));
    });
  }
});
