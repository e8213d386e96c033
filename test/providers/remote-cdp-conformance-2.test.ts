/** Part 2 of the conformance suite on a provider session (the harness: remote-cdp-conformance-harness.ts). */
import { runConformanceSuite } from '../conformance/suite.js';
import { remoteCdpHarness } from './remote-cdp-conformance-harness.js';

runConformanceSuite('provider session (remote-cdp)', 2, remoteCdpHarness);
