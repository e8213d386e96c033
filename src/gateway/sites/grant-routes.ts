/**
 * The owner's site grants (`tabgate grants list|add|revoke`): owner-only routes, so the agent's API key
 * can ask for sites (`POST /v1/sessions {sites}`) but never grant one. A grant takes effect on the
 * session's next navigation: the network guard reads the session's rules afresh.
 */
import { TabgateError } from '../../protocol/index.js';
import { objectBody } from '../http/body.js';
import type { Route, RouteContext } from '../http/route-table.js';
import type { Sessions } from '../sessions.js';
import type { GrantAudit } from './grant-audit.js';
import type { SiteBrowser, SitePolicies } from './site-policies.js';

export const SITE_GRANTS_PATH = '/v1/sessions/:id/site-grants';

export function siteGrantRoutes(
  sessions: Sessions,
  sites: SitePolicies,
  siteBrowserOf: (session: { session_id: string; binding: unknown }) => SiteBrowser,
  audit: GrantAudit,
): Route[] {
  const callerOf = (ctx: RouteContext) => {
    if (!ctx.caller) throw new Error('route requires a caller');
    return ctx.caller;
  };
  const session = (ctx: RouteContext) => sessions.require(callerOf(ctx), ctx.params.id ?? '');
  const view = (record: { session_id: string; binding: unknown }) =>
    sites.view(record.session_id, siteBrowserOf(record));
  return [
    {
      method: 'GET',
      path: SITE_GRANTS_PATH,
      auth: 'operator',
      handle: async (ctx) => {
        const record = await session(ctx);
        return { status: 200, body: { session_id: record.session_id, sites: view(record) } };
      },
    },
    {
      method: 'POST',
      path: SITE_GRANTS_PATH,
      auth: 'operator',
      handle: async (ctx) => {
        const record = await session(ctx);
        const raw = objectBody(ctx.body).site;
        const site = await audit.record(callerOf(ctx), record.session_id, 'grant', raw, 'owner', () =>
          sites.grant(record.session_id, raw),
        );
        return { status: 200, body: { session_id: record.session_id, granted: site, sites: view(record) } };
      },
    },
    {
      method: 'POST',
      path: `${SITE_GRANTS_PATH}/revoke`,
      auth: 'operator',
      handle: async (ctx) => {
        const record = await session(ctx);
        const site = objectBody(ctx.body).site;
        await audit.record(callerOf(ctx), record.session_id, 'revoke', site, 'owner', async () => {
          if (!(await sites.revoke(record.session_id, site)))
            throw new TabgateError(
              'invalid_request',
              'This session holds no such grant; `tabgate grants list` shows them.',
            );
        });
        return { status: 200, body: { session_id: record.session_id, revoked: site, sites: view(record) } };
      },
    },
  ];
}
