/**
 * tabgate's single source of truth for everything that crosses a boundary: protocol v1 frames and
 * constants, the capability allowlist, the tool catalog and the error table. Imports nothing of ours,
 * so it runs in Node and in the extension's service worker alike.
 */
export * from './wire/constants.js';
export * from './wire/capabilities.js';
export * from './wire/frames.js';
export * from './wire/registration.js';
export * from './wire/upload-files.js';
export * from './wire/download-frames.js';
export * from './errors.js';
export * from './tools/define.js';
export * from './tools/catalog.js';
export * from './tools/results.js';
export { refSchema, MOUSE_BUTTONS, SCROLL_DIRECTIONS } from './tools/input.js';
export * from './tools/keys.js';
export * from './url-policy.js';
export * from './secret-fill.js';
export * from './extension-key.js';
export * from './site-address.js';
export * from './site-categories.js';
export * from './site-policy.js';
export * from './approvals.js';
