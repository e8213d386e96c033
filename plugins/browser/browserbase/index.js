// Bundled plugin entry. The provider is implemented in src/providers/bundled/ and compiled with tabgate
// (type-checked, shipped in dist/); this entry registers it exactly as a third-party plugin would, so a
// user plugin providing "browserbase" replaces it.
/** @param {import('../../../src/providers/plugin-context.js').PluginContext} ctx */
export function register(ctx) {
  ctx.registerBrowserProvider(ctx.bundled['browserbase'](ctx));
}
