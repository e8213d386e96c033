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
import type { GrantAudit, GrantChange } from '../../sites/grant-audit.js';
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
  /** A change the person made in the popup: audited as theirs, answered with the policy it leaves. */
  const change = (
    action: GrantChange,
    answerKey: string,
    apply: (sessionId: string, site: unknown) => Promise<string>,
  ): Route => ({
    method: 'POST',
    path: `${EXTENSION_SITES_PATH}/${action}`,
    auth: 'controller',
    handle: async (ctx) => {
      const record = await servedSession(ctx);
      const site = objectBody(ctx.body).site;
      const changed = await audit.record(
        pairedExtension(ctx),
        record.session_id,
        action,
        site,
        'extension',
        () => apply(record.session_id, site),
      );
      return answer(record.session_id, { [answerKey]: changed });
    },
  });
  // Deny drops a site the session asked for; revoke takes back a grant. Both forget the row.
  const forget =
    (list: 'requested' | 'granted', notThere: string) => async (sessionId: string, site: unknown) => {
      const named = sites.validate([site])[0] ?? '';
      if (!sites.view(sessionId, 'user_tab')[list].includes(named))
        throw new TabgateError('invalid_request', notThere);
      await sites.revoke(sessionId, named);
      return named;
    };
  return [
    {
      method: 'GET',
      path: EXTENSION_SITES_PATH,
      auth: 'controller',
      // The extension reads it every few seconds while a tab is shared (grants change elsewhere too).
      quietLog: true,
      handle: async (ctx) => answer((await session(ctx)).session_id),
    },
    change('grant', 'granted', (sessionId, site) => sites.grant(sessionId, site)),
    change('deny', 'denied', forget('requested', 'This session did not ask for that site.')),
    change('revoke', 'revoked', forget('granted', 'This session holds no grant for that site.')),
  ];
}
