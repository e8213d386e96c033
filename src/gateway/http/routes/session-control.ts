/**
 * The owner's Stop and Resume of a session (`POST /v1/sessions/{id}/stop|resume`): the operator
 * credential only — the CLI's operator key, or the signed-in dashboard with its page token — never the
 * agent's API key, whose session it is.
 */
import type { Caller, GatewayService } from '../../service.js';
import type { Route } from '../route-table.js';
import type { OwnerCsrf } from './owner-csrf.js';

export function sessionControlRoutes(service: GatewayService, csrf: OwnerCsrf): Route[] {
  const owner = (ctx: { caller: Caller | null }) => {
    if (!ctx.caller) throw new Error('route requires a caller');
    return ctx.caller;
  };
  return [
    csrf.ownerAction({
      method: 'POST',
      path: '/v1/sessions/:id/stop',
      handle: async (ctx) => {
        const { session, cancelled } = await service.stopSession(owner(ctx), ctx.params.id ?? '');
        return { status: 200, body: { ...session, cancelled_calls: cancelled } };
      },
    }),
    csrf.ownerAction({
      method: 'POST',
      path: '/v1/sessions/:id/resume',
      handle: async (ctx) => ({
        status: 200,
        body: await service.resumeSession(owner(ctx), ctx.params.id ?? ''),
      }),
    }),
  ];
}
