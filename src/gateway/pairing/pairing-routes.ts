/**
 * The HTTP face of pairing. Extension side (no bearer; identity = Origin): start and collect. Owner
 * side, and only the owner's: the approval page's decisions (a signed-in owner browser on this
 * computer) and the operator-key routes `tabgate pair` uses. The API key (the agent's) and a pairing
 * token reach none of the owner's routes; Origin and Sec-Fetch-Site are never taken as proof of a person.
 */
import type { IncomingMessage } from 'node:http';
import { TabgateError } from '../../protocol/index.js';
import { transportFamilyOf } from '../auth/authenticator.js';
import { objectBody } from '../http/body.js';
import type { Route } from '../http/route-table.js';
import { operatorRequired, type OperatorAuth } from '../operator/index.js';
import { renderApprovalPage, renderPageError } from './approval-page.js';
import type { PairingService } from './pairing-service.js';

export const PAIR_PATH = '/v1/browser-control/pair';
export const PAIRINGS_PATH = '/v1/pairings';
/** This browser's own pairing, as its token sees it. */
export const OWN_PAIRING_PATH = '/v1/browser-control/pairing';

function requireLoopbackPeer(req: IncomingMessage): void {
  if (transportFamilyOf(req.socket.remoteAddress) !== 'local-api') {
    throw new TabgateError(
      'pairing_forbidden',
      'Pairing is approved only on the computer the gateway runs on.',
    );
  }
}

const decisionOf = (action: 'approve' | 'deny'): 'approved' | 'denied' =>
  action === 'approve' ? 'approved' : 'denied';

export function pairingRoutes(service: PairingService, operator: OperatorAuth): Route[] {
  const pageDecision = (action: 'approve' | 'deny'): Route => ({
    method: 'POST',
    path: `/pair/:id/${action}`,
    auth: 'custom',
    limit: 'pairing',
    sameOriginPage: true,
    handle: (ctx) => {
      // The owner's signed-in browser on this computer, posting from the gateway's own page.
      const session = operator.signedInSession(ctx.req);
      if (session === null) throw operatorRequired();
      const body = objectBody(ctx.body);
      const id = ctx.params.id ?? '';
      const summary = service.decideFromPage(id, body.page_token, decisionOf(action), session);
      return { status: 200, body: summary };
    },
  });
  const codeDecision = (action: 'approve' | 'deny'): Route => ({
    method: 'POST',
    path: `${PAIRINGS_PATH}/${action}`,
    auth: 'operator',
    handle: (ctx) => ({
      status: 200,
      body: service.decideByCode(
        objectBody(ctx.body).code,
        decisionOf(action),
        ctx.caller?.credentialId ?? 'operator',
      ),
    }),
  });
  return [
    {
      method: 'POST',
      path: PAIR_PATH,
      auth: 'custom',
      limit: 'pairing',
      handle: (ctx) => {
        const started = service.start(ctx.req.headers.origin, objectBody(ctx.body));
        const approveUrl = `http://${ctx.req.headers.host ?? ''}/pair/${encodeURIComponent(started.pairing_id)}`;
        return { status: 201, body: { ...started, approve_url: approveUrl } };
      },
    },
    {
      method: 'POST',
      path: `${PAIR_PATH}/:id/token`,
      auth: 'custom',
      limit: 'pairing',
      handle: async (ctx) => {
        const outcome = await service.collect(ctx.params.id ?? '', ctx.req.headers.origin);
        if (outcome.status === 'pending') return { status: 202, body: outcome };
        return {
          status: 200,
          body: {
            status: 'approved',
            token: outcome.token,
            grant_id: outcome.grant.grant_id,
            name: outcome.grant.name,
          },
        };
      },
    },
    {
      method: 'DELETE',
      path: `${PAIR_PATH}/:id`,
      auth: 'custom',
      limit: 'pairing',
      handle: (ctx) => {
        service.withdraw(ctx.params.id ?? '', ctx.req.headers.origin);
        return { status: 200, body: { withdrawn: true } };
      },
    },
    {
      // Unpair: a paired extension gives up its own grant; nothing else can be revoked this way.
      method: 'DELETE',
      path: OWN_PAIRING_PATH,
      auth: 'controller',
      handle: async (ctx) => {
        const grantId = ctx.caller?.credential === 'pairing_token' ? ctx.caller.credentialId : undefined;
        if (!grantId) {
          throw new TabgateError(
            'token_scope_forbidden',
            'Only a paired extension may unpair itself this way.',
          );
        }
        return { status: 200, body: { revoked: true, grant: await service.revoke(grantId) } };
      },
    },
    {
      method: 'GET',
      path: '/pair/:id',
      auth: 'custom',
      limit: 'pairing',
      handle: (ctx) => {
        try {
          requireLoopbackPeer(ctx.req);
          renderApprovalPage(ctx.res, service.pageFor(ctx.params.id ?? ''));
        } catch (error) {
          if (!(error instanceof TabgateError)) throw error;
          renderPageError(ctx.res, error.status, error.message);
        }
      },
    },
    pageDecision('approve'),
    pageDecision('deny'),
    codeDecision('approve'),
    codeDecision('deny'),
    {
      method: 'GET',
      path: PAIRINGS_PATH,
      auth: 'operator',
      handle: () => ({ status: 200, body: { grants: service.listGrants(), pending: service.listPending() } }),
    },
    {
      method: 'DELETE',
      path: `${PAIRINGS_PATH}/:id`,
      auth: 'operator',
      handle: async (ctx) => ({
        status: 200,
        body: { revoked: true, grant: await service.revoke(ctx.params.id ?? '') },
      }),
    },
  ];
}
