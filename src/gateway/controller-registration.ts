/**
 * `POST /v1/browser-control/register` after the transport checks (feature flag, key configured,
 * bearer): validates the body in the protocol's order and mints a ticket for a scope whose principal
 * comes from the caller, never from the body.
 */
import {
  CONTROLLER_WS_PATH,
  filterCapabilities,
  PROTOCOL_VERSION,
  registrationIdentitySchema,
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
  const identity = registrationIdentitySchema.safeParse(fields);
  if (!identity.success) {
    // The first field in the protocol's order is the one named, as the reference server does.
    const issue = identity.error.issues[0];
    throw invalid(`${String(issue?.path[0] ?? 'body')} ${issue?.message ?? 'is invalid'}.`);
  }
  const { session_id: sessionId, controller_id, browser_profile_id } = identity.data;
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
    controller_id,
    browser_profile_id,
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
