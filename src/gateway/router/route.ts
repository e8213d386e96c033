/**
 * Fail-closed routing of one browser_* call (PROTOCOL.md "Routing a browser_* tool call"), as pure
 * policy: it reads a snapshot of the lane and answers where the call goes. No I/O, no state.
 */
import {
  checkNavigationUrl,
  UNSAFE_ROUTING_ARGUMENT_KEYS,
  type TransportFamily,
} from '../../protocol/index.js';
import type { ControllerScope } from '../broker/scope.js';
import type { LaneState } from '../broker/broker.js';

export type RouteDecision =
  | { kind: 'backend' }
  | { kind: 'controller'; scope: ControllerScope }
  | { kind: 'unavailable'; message: string };

export interface RouteInput {
  tool: string;
  /** The live `browser.extension_control.enabled`. */
  featureEnabled: boolean;
  principalId: string | null;
  transportFamily: TransportFamily | null;
  lane: () => LaneState;
}

export function decideRoute(input: RouteInput): RouteDecision {
  // 1. Feature off, or no principal/transport bound: the session's normal backend.
  if (!input.featureEnabled || !input.principalId?.trim() || !input.transportFamily)
    return { kind: 'backend' };
  const lane = input.lane();
  // 2. Registration, not authentication alone, makes a lane authoritative.
  if (!lane.registered) return { kind: 'backend' };
  // 3. Registered: exactly one online controller that can do this, or nothing at all.
  if (lane.controllers.length !== 1) {
    return { kind: 'unavailable', message: `bound browser controller unavailable for ${input.tool}` };
  }
  const [only] = lane.controllers;
  if (!only?.connected || !only.scope.capabilities.some((capability) => capability === input.tool)) {
    return { kind: 'unavailable', message: `bound browser controller cannot execute ${input.tool}` };
  }
  return { kind: 'controller', scope: only.scope };
}

/**
 * 4. Arguments that try to steer below the allowlist, or navigation to a cloud-metadata address, never
 * reach a controller. Checked on the raw arguments, before schema validation strips anything.
 */
export function unsafeControllerArguments(tool: string, raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return null;
  const args = raw as Record<string, unknown>;
  const steering = UNSAFE_ROUTING_ARGUMENT_KEYS.some((key) => Object.hasOwn(args, key));
  const metadata =
    tool === 'browser_navigate' &&
    typeof args.url === 'string' &&
    checkNavigationUrl(args.url).kind === 'metadata';
  return steering || metadata ? `unsafe ${tool} arguments` : null;
}
