/**
 * The reference protocol's capability allowlist, exactly as it is: what `GET /v1/capabilities`
 * advertises and what a controller of the reference protocol asks for (docs/protocol.md "Capabilities").
 */
export const CONTROLLER_CAPABILITIES = [
  'controller.noop',
  'browser_back',
  'browser_click',
  'browser_navigate',
  'browser_press',
  'browser_screenshot',
  'browser_scroll',
  'browser_snapshot',
  'browser_tab_activate',
  'browser_tabs',
  'browser_type',
] as const;

/**
 * What tabgate adds, granted only to a controller that asks for each by name (tabgate's extension does):
 * actions that are safe on a user's own tab. An upload carries the bytes of files the gateway read from
 * `browser.upload_roots` (upload-files.ts), and a download is streamed to the gateway's folder for the
 * session (download-frames.ts), never saved on the person's disk. Still no raw CDP, no script evaluation, no console, no
 * vision.
 */
export const EXTENDED_CONTROLLER_CAPABILITIES = [
  'browser_dialog',
  'browser_downloads',
  'browser_drag',
  'browser_fill_form',
  'browser_forward',
  'browser_hover',
  'browser_read',
  'browser_reload',
  'browser_select_option',
  'browser_tab_close',
  'browser_tab_new',
  'browser_upload',
  'browser_wait_for',
] as const;

export type ControllerCapability =
  (typeof CONTROLLER_CAPABILITIES)[number] | (typeof EXTENDED_CONTROLLER_CAPABILITIES)[number];

/** The gateway's allowlist: the only actions a controller can ever be asked to run. */
const ALLOWED: ReadonlySet<string> = new Set([
  ...CONTROLLER_CAPABILITIES,
  ...EXTENDED_CONTROLLER_CAPABILITIES,
]);

export function isControllerCapability(value: unknown): value is ControllerCapability {
  return typeof value === 'string' && ALLOWED.has(value);
}

/**
 * Intersects what a controller asked for with the allowlist. A non-list becomes empty; unknown names
 * and non-strings are dropped silently; the result is sorted and free of duplicates.
 */
export function filterCapabilities(requested: unknown): ControllerCapability[] {
  if (!Array.isArray(requested)) return [];
  const kept = new Set<ControllerCapability>();
  for (const item of requested) if (isControllerCapability(item)) kept.add(item);
  return [...kept].sort();
}

/**
 * Argument keys that would steer an action below the allowlist (a raw target, frame or CDP session).
 * A call carrying any of them never reaches a controller.
 */
export const UNSAFE_ROUTING_ARGUMENT_KEYS = [
  'target_id',
  'targetId',
  'frame_id',
  'frameId',
  'session_id',
  'sessionId',
  'targetInfo',
] as const;
