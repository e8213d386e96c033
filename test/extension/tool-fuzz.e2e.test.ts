/**
 * Random tool calls on the user's own tab, the path an agent takes through the real extension: the same
 * page and the same draws as the local browser's fuzz suite (test/reliability/api-fuzz.test.ts), through
 * the gateway, the controller socket and chrome.debugger. Every answer is a result or an error of the
 * error table with that error's status (a refusal of the extension's, its own table code), never
 * `internal_error`; the gateway logs no unexpected error; and afterwards the share still serves the
 * tab it was given. Bounded: 120 calls. Full (SOAK=1): 1,000.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { isErrorCode } from '../../src/protocol/index.js';
import { scaled, SEED, seededRandom } from '../reliability/fixtures/scale.js';
import { startFuzzSite, toolFuzzer, typedError, type FuzzSite } from '../reliability/fixtures/tool-fuzz.js';
import {
  callTool,
  LOOPBACK_TEST_SITES,
  shareTarget,
  startStage,
  status,
  type Stage,
} from './fixtures/paired-setup.js';

const TOOL_CALLS = scaled(120, 1_000);

describe("random tool calls on the user's tab", () => {
  let stage: Stage;
  let site: FuzzSite;
  before(async () => {
    site = await startFuzzSite();
    stage = await startStage({
      config: {
        browser: { extension_control: { enabled: true, command_timeout: 30 } },
        // The tools are fuzzed here, not the person's approvals (test/security/approvals*).
        safety: { ...LOOPBACK_TEST_SITES, approvals: { user_tab: 'none' } },
      },
    });
  });
  after(async () => {
    await stage.close();
    await site.close();
  });

  it('answers a result or a typed error, never internal_error, and keeps the share', async () => {
    const { targetId } = await stage.browser.cdp.send<{ targetId: string }>('Target.createTarget', {
      url: `${site.base}/`,
    });
    const { sessionId } = await shareTarget(stage, targetId, 'fuzz');
    const fuzzer = toolFuzzer(seededRandom(SEED), site.base);
    const wrong: string[] = [];
    const seen = new Map<string, number>();
    for (let i = 0; i < TOOL_CALLS; i++) {
      const next = fuzzer.next();
      const response = await callTool(stage, sessionId, next.tool, next.args);
      const code = (response.body as { error?: { code?: string } }).error?.code;
      // The extension's own reason rides along as controller_code: counted with it.
      const reason = (response.body as { error?: { controller_code?: string } }).error?.controller_code;
      const answer = [code ?? 'ok', reason].filter(Boolean).join('/');
      seen.set(answer, (seen.get(answer) ?? 0) + 1);
      // A refusal of the extension's carries its own table code; one without (an exception it did not
      // expect) or with internal_error is what a 500 is on the gateway.
      const extensionTyped =
        code !== 'controller_rejected' || (isErrorCode(reason) && reason !== 'internal_error');
      if (response.status !== 200 && !(typedError(response.status, code) && extensionTyped))
        wrong.push(`${next.tool} ${JSON.stringify(next.args).slice(0, 100)}: ${response.status} ${answer}`);
      fuzzer.answered(next, response.status, response.body);
    }
    console.log(`user-tab fuzz: ${TOOL_CALLS} calls, answers ${JSON.stringify(Object.fromEntries(seen))}`);
    assert.deepEqual(wrong, []);
    assert.deepEqual(
      stage.gw.logLines.filter((line) => /unexpected error|browser call failed/.test(line)),
      [],
    );
    assert.equal((await status(stage.browser)).connection.state, 'connected');
    assert.equal((await callTool(stage, sessionId, 'browser_tabs')).status, 200);
  });
});
