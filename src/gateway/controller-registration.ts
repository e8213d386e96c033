/**
 * `POST /v1/browser-control/register` after the transport checks (feature flag, key configured,
 * bearer): validates the body in the protocol's order and mints a ticket for a scope whose principal
 * comes from the caller, never from the body.
 */
import {
  CONTROLLER_WS_PATH,
  filterCapabilities,
  MAX_REGISTRATION_FIELD_CHARS,
  PROTOCOL_VERSION,
  TabgateError,
} from '../protocol/index.js';
import { settle, type ControllerBroker } from './broker/controller-broker.js';
import type { ControllerScope } from './broker/scope.js';
import type { Clock } from './clock.js';
import type { Caller } from './service.js';
import type { Sessions } from './sessions.js';
import { noteRegistration } from './secrets/index.js';

export interface RegistrationResponse {
  protocol_version: 1;
  ticket: string;
  ticket_expires_at: number;
  ticket_expires_in_seconds: number;
  ws_path: string;
  scope: Omit<ControllerScope, 'capabilities'> & { capabilities: string[] };
}

const REQUIRED_FIELDS = ['session_id', 'controller_id', 'browser_profile_id'] as const;

function invalid(message: string): TabgateError {
  return new TabgateError('browser_control_invalid_registration', message);
}

export async function registerController(
  deps: { broker: ControllerBroker; sessions: Sessions; clock: Clock },
  caller: Caller,
  body: unknown,
): Promise<RegistrationResponse> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw invalid('The registration body must be a JSON object.');
  }
  const fields = body as Record<string, unknown>;
  for (const name of REQUIRED_FIELDS) {
    const value = fields[name];
    if (typeof value !== 'string' || value.length === 0 || value.length > MAX_REGISTRATION_FIELD_CHARS) {
      throw invalid(
        `${name} must be a non-empty string of at most ${MAX_REGISTRATION_FIELD_CHARS} characters.`,
      );
    }
  }
  // `true == 1` in some languages; the protocol wants exactly the integer 1.
  if (fields.protocol_version !== PROTOCOL_VERSION) {
    throw new TabgateError('browser_control_protocol_unsupported', 'Only protocol_version 1 is supported.');
  }
  const capabilities = filterCapabilities(fields.capabilities);
  if (capabilities.length === 0) {
    throw new TabgateError(
      'browser_control_no_capabilities',
      'None of the requested capabilities is allowed.',
    );
  }
  const sessionId = fields.session_id as string;
  if (!(await deps.sessions.find(caller, sessionId))) {
    throw new TabgateError(
      'browser_control_session_forbidden',
      'Browser control may register only for an existing server session.',
    );
  }
  const scope: ControllerScope = {
    principal_id: caller.principalId,
    profile_id: caller.profileId,
    session_id: sessionId,
    controller_id: fields.controller_id as string,
    browser_profile_id: fields.browser_profile_id as string,
    transport_family: caller.transportFamily,
    capabilities,
  };
  noteRegistration(caller, scope);
  return await settle(deps.broker.mintTicket(scope), (minted) => {
    const now = minted.issuedAt ?? deps.clock.now();
    return {
      protocol_version: PROTOCOL_VERSION,
      ticket: minted.ticket,
      ticket_expires_at: minted.expiresAt / 1000,
      ticket_expires_in_seconds: Math.max(0.001, (minted.expiresAt - now) / 1000),
      ws_path: CONTROLLER_WS_PATH,
      scope: { ...scope, capabilities: [...capabilities] },
    };
  });
}
