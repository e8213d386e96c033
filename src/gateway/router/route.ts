/**
 * Fail-closed routing of one browser_* call (docs/protocol.md "Routing a browser_* call"), as pure
 * policy: it reads the session's stored binding and a snapshot of the lane, and answers where the call
 * goes. No I/O, no state.
 */
import {
  checkNavigationUrl,
  UNSAFE_ROUTING_ARGUMENT_KEYS,
  type TransportFamily,
} from '../../protocol/index.js';
import type { ControllerScope } from '../broker/scope.js';
import type { LaneState } from '../broker/controller-broker.js';
import type { SessionBinding } from '../session-binding.js';

export type RouteDecision =
  | { kind: 'backend' }
  | { kind: 'controller'; scope: ControllerScope }
  | { kind: 'unavailable'; code: 'controller_unavailable' | 'session_stopped'; message: string };

export interface RouteInput {
  tool: string;
  /** The live `browser.extension_control.enabled`. */
  featureEnabled: boolean;
  principalId: string | null;
  transportFamily: TransportFamily | null;
  /** The session's stored binding: non-null once a user's browser has served it. */
  binding: SessionBinding | null;
  lane: () => LaneState;
}

const unavailable = (message: string): RouteDecision => ({
  kind: 'unavailable',
  code: 'controller_unavailable',
  message,
});

/**
 * Where a bound session's call goes when no controller of its lane can take it: nowhere. tabgate is
 * stricter than the reference router here: a session a user's browser served never reaches another
 * browser, whatever the flag, the caller's transport or the lane's history say.
 */
function closed(binding: SessionBinding, tool: string, featureEnabled: boolean): RouteDecision {
  if (!featureEnabled) {
    return unavailable(
      `this session is bound to the user's browser and extension control is off on this gateway (browser.extension_control.enabled); ${tool} was not run on any other browser`,
    );
  }
  switch (binding.state) {
    case 'stopped':
      return {
        kind: 'unavailable',
        code: 'session_stopped',
        message: `the user stopped sharing their browser with this session; ${tool} was not run. It runs again once they share a tab with this session from the tabgate extension.`,
      };
    case 'revoked':
      return {
        kind: 'unavailable',
        code: 'session_stopped',
        message: `the pairing of the browser that served this session was revoked; ${tool} was not run. It runs again once the user pairs the tabgate extension again and shares a tab with this session.`,
      };
    case 'bound':
      return unavailable(
        `the user's browser that serves this session is not connected; ${tool} was not run on any other browser`,
      );
  }
}

export function decideRoute(input: RouteInput): RouteDecision {
  const { binding } = input;
  // 1. Feature off, or no principal/transport bound: the session's normal backend, unless it is bound.
  if (!input.featureEnabled || !input.principalId?.trim() || !input.transportFamily)
    return binding ? closed(binding, input.tool, input.featureEnabled) : { kind: 'backend' };
  const lane = input.lane();
  // 2. Registration, not authentication alone, makes a lane authoritative; so does a stored binding.
  if (!lane.registered) return binding ? closed(binding, input.tool, true) : { kind: 'backend' };
  // 3. Registered: exactly one online controller that can do this, or nothing at all.
  if (lane.controllers.length !== 1) {
    return unavailable(`bound browser controller unavailable for ${input.tool}`);
  }
  const [only] = lane.controllers;
  if (!only?.connected || !only.scope.capabilities.some((capability) => capability === input.tool)) {
    return unavailable(`bound browser controller cannot execute ${input.tool}`);
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
    (tool === 'browser_navigate' || tool === 'browser_tab_new') &&
    typeof args.url === 'string' &&
    checkNavigationUrl(args.url).kind === 'metadata';
  return steering || metadata ? `unsafe ${tool} arguments` : null;
}
