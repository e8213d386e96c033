/**
 * The controller capability allowlist: the only actions a controller can ever be asked to run.
 * No raw CDP, no script evaluation, no console, no uploads, no vision (docs/protocol.md "Capabilities").
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

export type ControllerCapability = (typeof CONTROLLER_CAPABILITIES)[number];

const ALLOWED: ReadonlySet<string> = new Set(CONTROLLER_CAPABILITIES);

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
