/** `/v1/sessions` CRUD, and `POST /api/sessions` through which a reference client recreates its session. */
import { z } from 'zod';
import { TabgateError } from '../../../protocol/index.js';
import type { GatewayService } from '../../service.js';
import type { SiteBrowser, SitePolicies } from '../../sites/site-policies.js';
import { parseBody } from '../body.js';
import type { Route, RouteContext } from '../route-table.js';

// The shapes only: lengths and the id's characters are the session table's rules (`sessions.ts`).
const newSessionBody = z.object({
  title: z.string().nullish(),
  sites: z.unknown().optional(),
});
const recreatedSessionBody = z.object({
  id: z.string(),
  title: z.string().nullish(),
  source: z.string().optional(),
});

const callerOf = (ctx: RouteContext) => {
  if (!ctx.caller) throw new Error('route requires a caller');
  return ctx.caller;
};

/**
 * `sites`, when given, are the origins the session asks for up front: validated before the session is
 * made, stored as requests; only the owner turns them into grants. `GET` shows the policy in force.
 */
export function sessionRoutes(
  service: GatewayService,
  sites?: SitePolicies,
  siteBrowserOf?: (session: { session_id: string; binding: unknown }) => SiteBrowser,
): Route[] {
  const withSites = <T extends { session_id: string; binding: unknown }>(record: T) =>
    sites && siteBrowserOf
      ? { ...record, sites: sites.view(record.session_id, siteBrowserOf(record)) }
      : record;
  return [
    {
      method: 'POST',
      path: '/v1/sessions',
      handle: async (ctx) => {
        const body = parseBody(newSessionBody, ctx.body);
        const title = body.title;
        if (body.sites !== undefined && !sites)
          throw new TabgateError('invalid_request', 'This gateway takes no site requests.');
        // Validated first: a bad site list creates nothing.
        const requested = body.sites === undefined ? [] : (sites?.validate(body.sites) ?? []);
        const record = await service.createSession(callerOf(ctx), { title: title ?? null });
        await sites?.request(record.session_id, requested);
        return { status: 201, body: withSites(record) };
      },
    },
    {
      method: 'GET',
      path: '/v1/sessions',
      // A paired extension lists the sessions it may serve (pairing token scope).
      auth: 'controller',
      handle: async (ctx) => ({
        status: 200,
        body: { sessions: await service.listSessions(callerOf(ctx)) },
      }),
    },
    {
      method: 'GET',
      path: '/v1/sessions/:id',
      handle: async (ctx) => ({
        status: 200,
        body: withSites(await service.getSession(callerOf(ctx), ctx.params.id ?? '')),
      }),
    },
    {
      method: 'DELETE',
      path: '/v1/sessions/:id',
      handle: async (ctx) => {
        const sessionId = ctx.params.id ?? '';
        await service.deleteSession(callerOf(ctx), sessionId);
        await sites?.forget(sessionId);
        return { status: 200, body: { deleted: true, session_id: sessionId } };
      },
    },
    {
      method: 'POST',
      path: '/v1/sessions/:id/release',
      // The owner's act alone: the agent's API key cannot move a session off the user's browser.
      auth: 'operator',
      handle: async (ctx) => ({
        status: 200,
        body: await service.releaseSession(callerOf(ctx), ctx.params.id ?? ''),
      }),
    },
    {
      method: 'POST',
      path: '/api/sessions',
      handle: async (ctx) => {
        const body = parseBody(recreatedSessionBody, ctx.body);
        const { record, created } = await service.recreateSession(callerOf(ctx), {
          id: body.id,
          title: body.title ?? null,
          source: body.source ?? 'api',
        });
        // A reconnecting client recreates what it lost; an existing session of the same owner is fine.
        return { status: created ? 201 : 200, body: { id: record.session_id, ...record } };
      },
    },
  ];
}
