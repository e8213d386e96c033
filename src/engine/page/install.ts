/**
 * How the page-side functions reach a frame: their source, serialised once, evaluated in our isolated
 * world. Bundlers and tsx may wrap functions with a `__name(fn, "name")` helper (esbuild keepNames); the
 * shim defines it so the same source works from tsc output, tsx and the extension's esbuild bundle.
 */
import { installAgentState } from './agent-state.js';
import { installElementNames } from './agent-names.js';
import { installLinkTargets } from './agent-links.js';
import { installSnapshotWalker } from './agent-snapshot.js';
import { installReader } from './agent-reader.js';
import { installSecretFill } from './agent-secrets.js';

export const WORLD_NAME = '__tabgate_world';

export const INSTALL_EXPRESSION = `(() => {
  const __name = (target) => target;
  (${installAgentState.toString()})();
  (${installElementNames.toString()})();
  (${installLinkTargets.toString()})();
  (${installSnapshotWalker.toString()})();
  (${installSecretFill.toString()})();
  (${installReader.toString()})();
  return true;
})()`;

/** Called with `this` bound to an element (objectId) or to nothing (executionContextId). */
export const RUN_FUNCTION =
  'function (command, arg) { return globalThis.__tabgate.run(command, arg, this); }';
