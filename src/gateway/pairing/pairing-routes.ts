/**
 * The HTTP face of pairing. Extension side (no bearer; identity = Origin): start and collect. Person
 * side: the approval page on loopback, and the API-key routes `tabgate pair` uses. A pairing token
 * reaches none of these except as the extension that started the request.
 */
import type { IncomingMessage } from 'node:http';
import { TabgateError } from '../../protocol/index.js';
import { transportFamilyOf } from '../auth/authenticator.js';
import { objectBody } from '../http/body.js';
import type { Route } from '../http/route-table.js';
import { renderApprovalPage, renderPageError } from './approval-page.js';
import type { PairingService } from './pairing-service.js';

export const PAIR_PATH = '/v1/browser-control/pair';
export const PAIRINGS_PATH = '/v1/pairings';

function requireLoopbackPeer(req: IncomingMessage): void {
  if (transportFamilyOf(req.socket.remoteAddress) !== 'local-api') {
    throw new TabgateError(
      'pairing_forbidden',
      'Pairing is approved only on the computer the gateway runs on.',
    );
  }
}

/**
 * The approval page's own posts, and nothing else: a same-origin fetch from the gateway's page. A form
 * or script on any other site fails here (its Origin or Sec-Fetch-Site says so) even before its
 * missing page token would.
 */
function requireSameOriginPost(req: IncomingMessage): void {
  requireLoopbackPeer(req);
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin;
  const own = `http://${req.headers.host ?? ''}`.toLowerCase();
  if (
    (site !== undefined && site !== 'same-origin') ||
    origin === undefined ||
    origin.toLowerCase() !== own
  ) {
    throw new TabgateError('pairing_forbidden', 'Approvals are accepted only from the pairing page itself.');
  }
}

const decisionOf = (action: 'approve' | 'deny'): 'approved' | 'denied' =>
  action === 'approve' ? 'approved' : 'denied';

export function pairingRoutes(service: PairingService): Route[] {
  const pageDecision = (action: 'approve' | 'deny'): Route => ({
    method: 'POST',
    path: `/pair/:id/${action}`,
    auth: 'custom',
    sameOriginPage: true,
    handle: (ctx) => {
      requireSameOriginPost(ctx.req);
      const body = objectBody(ctx.body);
      const summary = service.decideFromPage(ctx.params.id ?? '', body.page_token, decisionOf(action));
      return { status: 200, body: summary };
    },
  });
  const codeDecision = (action: 'approve' | 'deny'): Route => ({
    method: 'POST',
    path: `${PAIRINGS_PATH}/${action}`,
    handle: (ctx) => ({
      status: 200,
      body: service.decideByCode(objectBody(ctx.body).code, decisionOf(action)),
    }),
  });
  return [
    {
      method: 'POST',
      path: PAIR_PATH,
      auth: 'custom',
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
      handle: (ctx) => {
        const outcome = service.collect(ctx.params.id ?? '', ctx.req.headers.origin);
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
      method: 'GET',
      path: '/pair/:id',
      auth: 'custom',
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
      handle: () => ({ status: 200, body: { grants: service.listGrants(), pending: service.listPending() } }),
    },
    {
      method: 'DELETE',
      path: `${PAIRINGS_PATH}/:id`,
      handle: (ctx) => ({ status: 200, body: { revoked: true, grant: service.revoke(ctx.params.id ?? '') } }),
    },
  ];
}
