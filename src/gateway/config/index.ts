export * from './schema.js';
export * from './load.js';
export * from './live-flag.js';
export * from './settings.js';
