/**
 * The anti-CSRF token of the owner's signed-in browser: every state change the dashboard makes sends it
 * as a header, next to the session's cookie and proof. It is derived from the browser session (an HMAC
 * under a key that lives in gateway memory), so it needs no storage, dies with the session, and differs
 * per session. The operator key (the CLI) needs none: a bearer header cannot be forged cross-site.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { TabgateError } from '../../../protocol/index.js';
import { secretsEqual } from '../../auth/api-key.js';
import type { Caller } from '../../service.js';
import type { Route, RouteContext } from '../route-table.js';

export const CSRF_HEADER = 'x-tabgate-csrf';

export class OwnerCsrf {
  private readonly key = randomBytes(32);

  /** The token of a signed-in browser session (its credential id, `browser:…`). */
  tokenFor(credentialId: string): string {
    return createHmac('sha256', this.key).update(credentialId).digest('base64url');
  }

  /** Throws `csrf_token_invalid` unless a browser caller sent its session's token. */
  check(caller: Caller | null, header: string | string[] | undefined): void {
    const credentialId = caller?.credentialId ?? '';
    if (caller?.credential === 'operator' && !credentialId.startsWith('browser:')) return;
    if (typeof header !== 'string' || !secretsEqual(header, this.tokenFor(credentialId))) {
      throw new TabgateError(
        'csrf_token_invalid',
        'This action did not carry the dashboard page token of your signed-in browser; reload the page.',
      );
    }
  }

  /**
   * An owner-only state change: the operator credential, the gateway's own pages allowed as the Origin,
   * and this token checked before the handler runs.
   */
  ownerAction(route: Omit<Route, 'auth' | 'sameOriginPage'>): Route {
    return {
      ...route,
      auth: 'operator',
      sameOriginPage: true,
      handle: (ctx: RouteContext) => {
        this.check(ctx.caller, ctx.req.headers[CSRF_HEADER]);
        return route.handle(ctx);
      },
    };
  }
}
