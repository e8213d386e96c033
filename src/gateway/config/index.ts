export * from './schema.js';
export * from './load.js';
export * from './live-flag.js';
export * from './settings.js';
export { parseConfigText, readConfigDocument, DANGEROUS_KEYS, type ConfigFile } from './config-file.js';
export { pluginSection, sectionKey, type PluginSections } from './plugin-sections.js';
