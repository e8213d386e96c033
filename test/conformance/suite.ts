/**
 * The conformance suite every backend must pass: the whole toolset on real pages of the test site.
 * `runConformanceSuite(name, part, makeHarness)` registers one part of the cases with node:test; each
 * case opens its own session. A case that a harness cannot run is skipped with its reason.
 *
 * Each backend runs the suite as three test files, one per part: the whole suite took one file 140–230 s
 * on a busy 2-core machine, past the runner's per-file timeout of 180 s (a file past it is cancelled,
 * and its remaining cases never run), and shorter files keep both cores busy to the end of the run.
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

type CaseGroup = (get: HarnessRef) => void;

/**
 * The suite's three parts, of about the same running time (local Chromium, two files at a time on two
 * cores: 66, 65 and 80 s); a group moves between parts with its declared skips
 * (`BackendLimits.skippedCases`).
 */
export const CONFORMANCE_PARTS: Readonly<Record<1 | 2 | 3, readonly CaseGroup[]>> = {
  1: [navigationCases, snapshotCases, frameCases],
  2: [actionCases, tabCases, pageCases],
  3: [taskCases, dialogCases, fileCases, screenshotCases],
};

export type ConformancePart = keyof typeof CONFORMANCE_PARTS;

export function runConformanceSuite(
  name: string,
  part: ConformancePart,
  /** Given the part, for a harness whose declared skips differ between parts. */
  makeHarness: (part: ConformancePart) => Promise<ConformanceHarness>,
): void {
  describe(`conformance: ${name} (part ${part} of 3)`, () => {
    let harness: ConformanceHarness | undefined;
    before(async () => {
      harness = await makeHarness(part);
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
    for (const group of CONFORMANCE_PARTS[part]) group(get);
  });
}
