/**
 * The conformance suite every backend must pass: the whole toolset on real pages of the test site.
 * `runConformanceSuite(name, makeHarness)` registers the cases with node:test; each case opens its own
 * session. A case that a harness cannot run is skipped with its reason.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import type { ConformanceHarness, HarnessRef } from './harness.js';
import { actionCases } from './cases-actions.js';
import { frameCases } from './cases-frames.js';
import { navigationCases } from './cases-navigation.js';
import { pageCases } from './cases-page.js';
import { snapshotCases } from './cases-snapshot.js';
import { tabCases } from './cases-tabs.js';
import { taskCases } from './cases-tasks.js';
import { dialogCases } from './cases-dialogs.js';
import { fileCases } from './cases-files.js';
import { screenshotCases } from './cases-screenshots.js';
import { unmetSkips } from './session-fixture.js';

export function runConformanceSuite(name: string, makeHarness: () => Promise<ConformanceHarness>): void {
  describe(`conformance: ${name}`, () => {
    let harness: ConformanceHarness | undefined;
    before(async () => {
      harness = await makeHarness();
    });
    after(async () => {
      await harness?.close();
      const stale = harness ? unmetSkips(harness) : [];
      assert.deepEqual(stale, [], `${name}: skipped cases declared by titles no case has`);
    });
    const get: HarnessRef = () => {
      if (!harness) throw new Error('the harness did not start');
      return harness;
    };
    navigationCases(get);
    snapshotCases(get);
    actionCases(get);
    frameCases(get);
    tabCases(get);
    pageCases(get);
    taskCases(get);
    dialogCases(get);
    fileCases(get);
    screenshotCases(get);
  });
}
