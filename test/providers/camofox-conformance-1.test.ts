/** Part 1 of the conformance suite on Camofox (the harness: camofox-conformance-harness.ts). */
import { runConformanceSuite } from '../conformance/suite.js';
import { camofoxHarness } from './camofox-conformance-harness.js';

runConformanceSuite('Camofox (REST, a local Camofox server driving a real Chromium)', 1, camofoxHarness);
