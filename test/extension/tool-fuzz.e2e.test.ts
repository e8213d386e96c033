/**
 * Random tool calls on the user's own tab, the path an agent takes through the real extension: the same
 * page and the same draws as the local browser's fuzz suite (test/reliability/api-fuzz.test.ts), through
 * the gateway, the controller socket and chrome.debugger. Every answer is a result or an error of the
 * error table with that error's status (a refusal of the extension's, its own table code), never
 * `internal_error`; the gateway logs no unexpected error; and afterwards the share still serves the
 * tab it was given. One call at a time, then four at a time (an agent's parallel calls), which the
 * extension runs one after the other as the gateway does on its own browsers. Bounded: 80 calls each.
 * The same on pages that navigate by themselves while the calls run. Full (SOAK=1): 1,000 each.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { scaled, SEED, seededRandom } from '../reliability/fixtures/scale.js';
import { fuzzTools, startFuzzSite, type FuzzSite } from '../reliability/fixtures/tool-fuzz.js';
import {
  callTool,
  LOOPBACK_TEST_SITES,
  shareTarget,
  startStage,
  status,
  type Stage,
} from './fixtures/paired-setup.js';

const TOOL_CALLS = scaled(80, 1_000);

describe("random tool calls on the user's tab", () => {
  let stage: Stage;
  let site: FuzzSite;
  let restless: FuzzSite;
  before(async () => {
    site = await startFuzzSite();
    restless = await startFuzzSite({ restless: true });
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
    await restless.close();
  });

  it('answers a result or a typed error, never internal_error, and keeps the share', async () => {
    const { targetId } = await stage.browser.cdp.send<{ targetId: string }>('Target.createTarget', {
      url: `${site.base}/`,
    });
    const { sessionId } = await shareTarget(stage, targetId, 'fuzz');
    const random = seededRandom(SEED);
    const call = (tool: string, args: Record<string, unknown>) => callTool(stage, sessionId, tool, args);
    // One at a time, then sent together as an agent's parallel calls are.
    for (const width of [1, 4]) {
      const run = await fuzzTools({ random, base: site.base, calls: TOOL_CALLS, width, call });
      console.log(`user-tab fuzz, ${width} at a time: ${JSON.stringify(Object.fromEntries(run.seen))}`);
      assert.deepEqual(run.wrong, [], `${width} at a time`);
    }
    assert.deepEqual(
      stage.gw.logLines.filter((line) => /unexpected error|browser call failed/.test(line)),
      [],
    );
    assert.equal((await status(stage.browser)).connection.state, 'connected');
    assert.equal((await callTool(stage, sessionId, 'browser_tabs')).status, 200);
  });

  it('answers a result or a typed error on a page that navigates by itself', async () => {
    const { targetId } = await stage.browser.cdp.send<{ targetId: string }>('Target.createTarget', {
      url: `${restless.base}/`,
    });
    const { sessionId } = await shareTarget(stage, targetId, 'restless');
    const call = (tool: string, args: Record<string, unknown>) => callTool(stage, sessionId, tool, args);
    const run = await fuzzTools({
      random: seededRandom(SEED + 1),
      base: restless.base,
      calls: TOOL_CALLS,
      width: 1,
      call,
    });
    console.log(`user-tab fuzz, restless page: ${JSON.stringify(Object.fromEntries(run.seen))}`);
    assert.deepEqual(run.wrong, []);
  });
});
