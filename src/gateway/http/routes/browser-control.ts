/**
 * `GET /v1/capabilities` and `POST /v1/browser-control/register`. Registration runs its checks in the
 * protocol's order: feature off 404 → no key configured 403 → bearer 401 → body 400s → session 403.
 */
import {
  CAPABILITIES_PATH,
  CONTROLLER_CAPABILITIES,
  CONTROLLER_WS_PATH,
  PROTOCOL_VERSION,
  REGISTER_PATH,
  TabgateError,
  TRANSPORTS_ADVERTISED,
} from '../../../protocol/index.js';
import type { ApiKeyVerifier } from '../../auth/api-key.js';
import type { Authenticator } from '../../auth/authenticator.js';
import type { ControllerBroker } from '../../broker/controller-broker.js';
import type { Clock } from '../../clock.js';
import type { FeatureFlag } from '../../config/live-flag.js';
import { registerController, type RegistrationResponse } from '../../controller-registration.js';
import type { Caller } from '../../service.js';
import type { Sessions } from '../../sessions.js';
import type { Route } from '../route-table.js';

export interface BrowserControlRouteDeps {
  extensionControl: FeatureFlag;
  apiKey: ApiKeyVerifier;
  authenticator: Authenticator;
  broker: ControllerBroker;
  sessions: Sessions;
  clock: Clock;
  /** Told of every successful registration (pairing remembers which grant opened which controller). */
  onRegistered?: (caller: Caller, registration: RegistrationResponse) => void;
}

export function browserControlRoutes(deps: BrowserControlRouteDeps): Route[] {
  return [
    {
      method: 'GET',
      path: CAPABILITIES_PATH,
      auth: 'controller',
      handle: () => ({
        status: 200,
        body: {
          features: {
            browser_extension_control: {
              enabled: deps.extensionControl.enabled(),
              protocol_version: PROTOCOL_VERSION,
              capabilities: [...CONTROLLER_CAPABILITIES],
              real_browser_actions: true,
              transports: TRANSPORTS_ADVERTISED,
            },
          },
          endpoints: {
            browser_control_register: { method: 'POST', path: REGISTER_PATH },
            browser_control_ws: { method: 'GET', path: CONTROLLER_WS_PATH },
          },
        },
      }),
    },
    {
      method: 'POST',
      path: REGISTER_PATH,
      auth: 'custom',
      limit: 'register',
      handle: async (ctx) => {
        if (!deps.extensionControl.enabled()) {
          throw new TabgateError(
            'browser_control_disabled',
            'Browser control is not enabled on this server.',
          );
        }
        if (!deps.apiKey.configured) {
          throw new TabgateError(
            'browser_control_auth_required',
            'Browser control requires an API key on this server.',
          );
        }
        const caller = deps.authenticator.authenticate(
          ctx.req.headers.authorization,
          ctx.req.socket.remoteAddress,
        );
        if (!caller) throw new TabgateError('invalid_api_key', 'Invalid API key.');
        const body = ctx.body.kind === 'json' ? ctx.body.value : null;
        const registration = await registerController(deps, caller, body);
        deps.onRegistered?.(caller, registration);
        return { status: 201, body: registration };
      },
    },
  ];
}
