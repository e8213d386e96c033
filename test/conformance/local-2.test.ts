/** Part 2 of the conformance suite on the local Chromium backend (the harness: local-harness.ts). */
import { localChromiumHarness } from './local-harness.js';
import { runConformanceSuite } from './suite.js';

runConformanceSuite('local Chromium', 2, localChromiumHarness);
