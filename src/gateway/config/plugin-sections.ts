/**
 * Plugin config sections: `browser.<name>` mappings that tabgate's own schema does not know belong to
 * provider plugins (`ctx.config('<name>')`). Which plugins are installed is only known after discovery,
 * so loading keeps every unknown `browser.*` mapping aside instead of dropping it; the backends' resolver
 * warns about the sections no plugin claims, and a plugin that gives a schema validates its own.
 */
type Tree = Record<string, unknown>;
export type PluginSections = Readonly<Record<string, Readonly<Tree>>>;

const isTree = (value: unknown): value is Tree =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The config key of a plugin or provider name: `remote-cdp` is written `remote_cdp`. */
export const sectionKey = (name: string): string => name.trim().toLowerCase().replace(/-/g, '_');

/** Whether an unknown key at this path is kept as a plugin section rather than warned about and dropped. */
export function isPluginSectionPath(path: readonly string[], value: unknown): boolean {
  return path.length === 2 && path[0] === 'browser' && isTree(value);
}

/** The unknown `browser.*` mappings of the file, by key. */
export function pluginSectionsOf(tree: Tree, unknown: readonly string[][]): Record<string, Tree> {
  const browser = isTree(tree.browser) ? tree.browser : {};
  const out: Record<string, Tree> = {};
  for (const path of unknown) {
    const key = path[1];
    const value = key === undefined ? undefined : browser[key];
    if (key !== undefined && isPluginSectionPath(path, value)) out[key] = value as Tree;
  }
  return out;
}

/**
 * A plugin's section: an unknown `browser.<name>` mapping, or one tabgate's schema knows (the bundled
 * `remote_cdp`), or `{}`.
 */
export function pluginSection(
  config: { browser: object; pluginSections: PluginSections },
  name: string,
): Readonly<Tree> {
  const key = sectionKey(name);
  if (Object.hasOwn(config.pluginSections, key)) return config.pluginSections[key] ?? {};
  const known = Object.hasOwn(config.browser, key)
    ? (config.browser as Record<string, unknown>)[key]
    : undefined;
  return isTree(known) ? known : {};
}
