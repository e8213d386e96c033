/**
 * The owner's sign-in: the page a one-time link opens and the post that trades its code for a browser
 * session (loopback only, from the gateway's own page), sign-out, and the operator-only route that mints
 * new links for `tabgate sign-in`.
 */
import { TabgateError } from '../../protocol/index.js';
import { transportFamilyOf } from '../auth/authenticator.js';
import type { Clock } from '../clock.js';
import { objectBody } from '../http/body.js';
import type { Route } from '../http/route-table.js';
import { cookieValue, isSameOriginRequest, operatorCookieName } from './operator-auth.js';
import { SIGN_IN_CODE_TTL_MS, type OperatorSignIn } from './operator-sign-in.js';
import { renderSignInPage, SIGN_IN_PATH } from './sign-in-page.js';

export const SIGN_IN_LINKS_PATH = '/v1/operator/sign-in-links';

/** A path on this gateway for the sign-in page to go on to; anything else is dropped. */
export function safeNextPath(next: unknown): string | null {
  if (next === undefined || next === null || next === '') return null;
  if (typeof next !== 'string' || next.length > 512 || !/^\/(?![/\\])[\x21-\x7e]*$/.test(next)) {
    throw new TabgateError('invalid_request', 'next: expected a path on this gateway, like /pair/ID.');
  }
  return next;
}

export function signInLink(base: string, code: string, next: string | null): string {
  const fragment = new URLSearchParams({ code, ...(next ? { next } : {}) });
  return `${base}${SIGN_IN_PATH}#${fragment.toString()}`;
}

export function operatorRoutes(signIn: OperatorSignIn, clock: Clock): Route[] {
  return [
    {
      method: 'GET',
      path: SIGN_IN_PATH,
      auth: 'custom',
      handle: (ctx) => renderSignInPage(ctx.res),
    },
    {
      method: 'POST',
      path: SIGN_IN_PATH,
      auth: 'custom',
      sameOriginPage: true,
      handle: (ctx) => {
        if (
          transportFamilyOf(ctx.req.socket.remoteAddress) !== 'local-api' ||
          !isSameOriginRequest(ctx.req)
        ) {
          throw new TabgateError(
            'sign_in_invalid',
            'Sign in from the link, on the computer the gateway runs on.',
          );
        }
        const session = signIn.redeem(objectBody(ctx.body).code, clock.now());
        if (!session) {
          throw new TabgateError(
            'sign_in_invalid',
            'This sign-in link was already used, has expired, or is wrong.',
          );
        }
        const maxAge = Math.floor((session.expiresAt - clock.now()) / 1000);
        ctx.res.setHeader(
          'set-cookie',
          `${operatorCookieName(ctx.req.headers.host)}=${session.cookie}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${maxAge}`,
        );
        return { status: 200, body: { signed_in: true, proof: session.proof, expires_in_seconds: maxAge } };
      },
    },
    {
      method: 'POST',
      path: '/operator/sign-out',
      auth: 'custom',
      sameOriginPage: true,
      handle: (ctx) => {
        if (!isSameOriginRequest(ctx.req))
          throw new TabgateError('forbidden_origin', 'Sign out from a gateway page.');
        const name = operatorCookieName(ctx.req.headers.host);
        signIn.signOut(cookieValue(ctx.req.headers.cookie, name));
        ctx.res.setHeader('set-cookie', `${name}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`);
        return { status: 200, body: { signed_in: false } };
      },
    },
    {
      method: 'POST',
      path: SIGN_IN_LINKS_PATH,
      auth: 'operator',
      handle: (ctx) => {
        const next = safeNextPath(objectBody(ctx.body).next);
        const { code } = signIn.mintCode(clock.now());
        return {
          status: 201,
          body: {
            url: signInLink(`http://${ctx.req.headers.host ?? ''}`, code, next),
            expires_in_seconds: SIGN_IN_CODE_TTL_MS / 1000,
          },
        };
      },
    },
    {
      method: 'POST',
      path: '/v1/operator/sign-out-everywhere',
      auth: 'operator',
      handle: () => {
        signIn.signOutEverywhere();
        return { status: 200, body: { signed_out: true } };
      },
    },
  ];
}
