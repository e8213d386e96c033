/**
 * The site grants of a session on the user's tab, for the tabgate extension (docs/extension.md, "Sites
 * on your tab"): the extension reads the policy it enforces in the user's browser, and the person grants,
 * denies or revokes sites in its popup. Only a paired extension's own token reaches these routes: the
 * agent's API key reads nothing here and can never grant (403 `operator_required`), and a grant made here
 * is the same grant `tabgate grants add` makes, so the gateway and the extension judge the same policy.
 */
import { TabgateError } from '../../../protocol/index.js';
import type { Caller } from '../../service.js';
import type { Sessions } from '../../sessions.js';
import type { GrantAudit } from '../../sites/grant-audit.js';
import type { SitePolicies } from '../../sites/site-policies.js';
import { objectBody } from '../body.js';
import type { Route, RouteContext } from '../route-table.js';

export const EXTENSION_SITES_PATH = '/v1/browser-control/sessions/:id/sites';

/** The paired extension behind a request, or the refusal every other credential gets. */
function pairedExtension(ctx: RouteContext): Caller {
  const caller = ctx.caller;
  if (caller?.credential !== 'pairing_token') {
    throw new TabgateError(
      'operator_required',
      "Only the user grants sites on their own tab, in the tabgate extension's popup (or the owner with `tabgate grants add`); the API key is the agent's and cannot.",
    );
  }
  return caller;
}

export function extensionSiteRoutes(sessions: Sessions, sites: SitePolicies, audit: GrantAudit): Route[] {
  const session = (ctx: RouteContext) => sessions.require(pairedExtension(ctx), ctx.params.id ?? '');
  /** Grants change only for a session a user's browser serves: other browsers are the owner's CLI's. */
  const servedSession = async (ctx: RouteContext) => {
    const record = await session(ctx);
    if (!record.binding) {
      throw new TabgateError(
        'token_scope_forbidden',
        'A paired extension grants sites only to a session it serves; share a tab with it first, or use `tabgate grants add` for other browsers.',
      );
    }
    return record;
  };
  const answer = (sessionId: string, extra: Record<string, unknown> = {}) => ({
    status: 200,
    body: {
      session_id: sessionId,
      ...extra,
      // What the extension enforces (the user's-tab policy, grants included) and what the popup lists.
      policy: sites.policyFor(sessionId, 'user_tab'),
      sites: sites.view(sessionId, 'user_tab'),
    },
  });
  const siteOf = (ctx: RouteContext) => objectBody(ctx.body).site;
  return [
    {
      method: 'GET',
      path: EXTENSION_SITES_PATH,
      auth: 'controller',
      // The extension reads it every few seconds while a tab is shared (grants change elsewhere too).
      quietLog: true,
      handle: async (ctx) => answer((await session(ctx)).session_id),
    },
    {
      method: 'POST',
      path: `${EXTENSION_SITES_PATH}/grant`,
      auth: 'controller',
      handle: async (ctx) => {
        const record = await servedSession(ctx);
        const granted = await audit.record(
          pairedExtension(ctx),
          record.session_id,
          'grant',
          siteOf(ctx),
          'extension',
          () => sites.grant(record.session_id, siteOf(ctx)),
        );
        return answer(record.session_id, { granted });
      },
    },
    {
      // Deny drops a site the session asked for; revoke takes back a grant. Both forget the row.
      method: 'POST',
      path: `${EXTENSION_SITES_PATH}/deny`,
      auth: 'controller',
      handle: async (ctx) => {
        const record = await servedSession(ctx);
        const site = await audit.record(
          pairedExtension(ctx),
          record.session_id,
          'deny',
          siteOf(ctx),
          'extension',
          async () => {
            const view = sites.view(record.session_id, 'user_tab');
            const asked = sites.validate([siteOf(ctx)])[0] ?? '';
            if (!view.requested.includes(asked))
              throw new TabgateError('invalid_request', 'This session did not ask for that site.');
            await sites.revoke(record.session_id, asked);
            return asked;
          },
        );
        return answer(record.session_id, { denied: site });
      },
    },
    {
      method: 'POST',
      path: `${EXTENSION_SITES_PATH}/revoke`,
      auth: 'controller',
      handle: async (ctx) => {
        const record = await servedSession(ctx);
        const site = await audit.record(
          pairedExtension(ctx),
          record.session_id,
          'revoke',
          siteOf(ctx),
          'extension',
          async () => {
            const view = sites.view(record.session_id, 'user_tab');
            const held = sites.validate([siteOf(ctx)])[0] ?? '';
            if (!view.granted.includes(held))
              throw new TabgateError('invalid_request', 'This session holds no grant for that site.');
            await sites.revoke(record.session_id, held);
            return held;
          },
        );
        return answer(record.session_id, { revoked: site });
      },
    },
  ];
}
