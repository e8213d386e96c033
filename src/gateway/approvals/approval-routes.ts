/**
 * The owner's approval channel over HTTP (`tabgate approvals`, the dashboard): list, approve and deny
 * under the operator credential only — the operator key, or the signed-in dashboard with its page token
 * — never the agent's API key or a pairing token (403). The agent may read one approval of its own
 * sessions (`GET /v1/approvals/{id}`), as `browser_approval_status` does; it can decide none.
 */
import type { IncomingMessage } from 'node:http';
import { TabgateError, type ApprovalChannel } from '../../protocol/index.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { OwnerCsrf } from '../http/routes/owner-csrf.js';
import type { Route, RouteContext } from '../http/route-table.js';
import type { OperatorAuth } from '../operator/index.js';
import type { Caller } from '../service.js';
import type { Sessions } from '../sessions.js';
import type { Approvals } from './approvals.js';

export const APPROVALS_PATH = '/v1/approvals';

export interface ApprovalRouteDeps {
  approvals: Approvals;
  sessions: Sessions;
  csrf: OwnerCsrf;
  operator: OperatorAuth;
  authenticator: Authenticator;
}

const ownerOf = (ctx: RouteContext): Caller => {
  if (!ctx.caller) throw new Error('route requires a caller');
  return ctx.caller;
};

/** The channel follows from the credential, never from what the request says. */
export function channelOf(caller: Caller): ApprovalChannel {
  return caller.credentialId?.startsWith('browser:') ? 'dashboard' : 'cli';
}

export function approvalRoutes(d: ApprovalRouteDeps): Route[] {
  /** The owner, or the agent's API key; a pairing token is a controller's and reads nothing here. */
  const readerOf = (req: IncomingMessage): Caller => {
    if (d.operator.isOperator(req)) return d.operator.require(req);
    const caller = d.authenticator.authenticate(req.headers.authorization, req.socket.remoteAddress);
    if (!caller) throw new TabgateError('invalid_api_key', 'Missing or invalid API key.');
    if (caller.credential !== 'api_key')
      throw new TabgateError(
        'token_scope_forbidden',
        'This credential may only act as a browser controller.',
      );
    return caller;
  };
  const decision = (approve: boolean): Route =>
    d.csrf.ownerAction({
      method: 'POST',
      path: `${APPROVALS_PATH}/:id/${approve ? 'approve' : 'deny'}`,
      handle: async (ctx) => {
        const owner = ownerOf(ctx);
        const record = await d.approvals.decide(owner, ctx.params.id ?? '', approve, channelOf(owner));
        return { status: 200, body: { approval: record } };
      },
    });
  return [
    {
      method: 'GET',
      path: APPROVALS_PATH,
      auth: 'operator',
      handle: (ctx) => {
        const pending = new URLSearchParams(ctx.req.url?.split('?')[1] ?? '').get('status') === 'pending';
        return { status: 200, body: { approvals: d.approvals.list(ownerOf(ctx), pending) } };
      },
    },
    {
      method: 'GET',
      path: `${APPROVALS_PATH}/:id`,
      auth: 'custom',
      handle: async (ctx) => {
        const caller = readerOf(ctx.req);
        const record = await d.approvals.book.fetch(ctx.params.id ?? '');
        if (caller.credential !== 'operator') {
          // The agent sees approvals of its own sessions only, and cannot tell others exist.
          try {
            await d.sessions.require(caller, record.session_id);
          } catch {
            throw new TabgateError('approval_not_found', 'No approval with that id in your sessions.');
          }
        }
        return { status: 200, body: { approval: record } };
      },
    },
    decision(true),
    decision(false),
  ];
}
