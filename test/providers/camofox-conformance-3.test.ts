/** Part 3 of the conformance suite on Camofox (the harness: camofox-conformance-harness.ts). */
import { runConformanceSuite } from '../conformance/suite.js';
import { camofoxHarness } from './camofox-conformance-harness.js';

runConformanceSuite('Camofox (REST, a local Camofox server driving a real Chromium)', 3, camofoxHarness);
