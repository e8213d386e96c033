/** Part 2 of the conformance suite on the user's own tab (the harness: conformance-harness.ts). */
import { runConformanceSuite } from '../conformance/suite.js';
import { extensionHarness } from './conformance-harness.js';

runConformanceSuite('extension (the user tab, through the gateway)', 2, extensionHarness);
