/**
 * Whether a request comes from the gateway's owner, in this one place: the operator key as a bearer
 * (the owner's CLI), or, from a browser on this computer, a signed-in operator session — its cookie and
 * its proof header together, on a same-origin request. The API key, a pairing token, and headers any
 * program can set (Origin, Sec-Fetch-Site) are never enough on their own.
 */
import type { IncomingMessage } from 'node:http';
import { TabgateError } from '../../protocol/index.js';
import { ApiKeyVerifier } from '../auth/api-key.js';
import {
  bearerOf,
  DEFAULT_PROFILE_ID,
  OWNER_PRINCIPAL_ID,
  transportFamilyOf,
} from '../auth/authenticator.js';
import type { Clock } from '../clock.js';
import type { Caller } from '../service.js';
import type { OperatorSignIn } from './operator-sign-in.js';

export const OPERATOR_PROOF_HEADER = 'x-tabgate-operator';
/** The credential id of the operator key (a browser session's is `browser:…`). */
export const OPERATOR_KEY_CREDENTIAL = 'operator_key';

/** Cookies ignore ports: two gateways on one host keep apart by naming theirs after their port. */
export function operatorCookieName(host: string | undefined): string {
  const port = /:(\d{1,5})$/.exec(host ?? '')?.[1] ?? '80';
  return `tabgate_operator_${port}`;
}

export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * A browser's own fetch from a page of the gateway: the Origin is the gateway's, and so is the site. A
 * browser sends no Origin on a same-origin GET (the dashboard's reads), so there Sec-Fetch-Site alone
 * must say same-origin; the cookie and the proof header stay what proves the owner.
 */
export function isSameOriginRequest(req: IncomingMessage): boolean {
  const site = req.headers['sec-fetch-site'];
  const origin = req.headers.origin;
  if (origin === undefined && (req.method === 'GET' || req.method === 'HEAD')) return site === 'same-origin';
  return (
    (site === undefined || site === 'same-origin') &&
    origin !== undefined &&
    origin.toLowerCase() === `http://${req.headers.host ?? ''}`.toLowerCase()
  );
}

export function operatorRequired(): TabgateError {
  return new TabgateError(
    'operator_required',
    "Only the gateway's owner may do this: run the tabgate command in the owner's terminal, or sign in on this computer with a link from `tabgate sign-in`.",
  );
}

export class OperatorAuth {
  private readonly key: ApiKeyVerifier;

  constructor(
    operatorKey: string,
    private readonly signIn: OperatorSignIn,
    private readonly clock: Clock,
  ) {
    this.key = new ApiKeyVerifier(operatorKey);
  }

  /** The owner acting through this request; throws `operator_required` otherwise. */
  require(req: IncomingMessage): Caller {
    const credentialId = this.credentialOf(req);
    if (credentialId === null) throw operatorRequired();
    return Object.freeze({
      principalId: OWNER_PRINCIPAL_ID,
      profileId: DEFAULT_PROFILE_ID,
      credential: 'operator',
      credentialId,
      transportFamily: transportFamilyOf(req.socket.remoteAddress),
    });
  }

  isOperator(req: IncomingMessage): boolean {
    return this.credentialOf(req) !== null;
  }

  /**
   * Which of the owner's credentials this request proves — `operator_key`, or one signed-in browser
   * session (`browser:…`) — or null. Limits on the owner's mistakes count per credential.
   */
  credentialOf(req: IncomingMessage): string | null {
    const bearer = bearerOf(req.headers.authorization);
    if (bearer !== null) return this.key.verify(bearer) ? OPERATOR_KEY_CREDENTIAL : null;
    return this.signedInSession(req);
  }

  /** The signed-in browser session behind a same-origin loopback request, or null. */
  signedInSession(req: IncomingMessage): string | null {
    if (transportFamilyOf(req.socket.remoteAddress) !== 'local-api' || !isSameOriginRequest(req)) return null;
    const cookie = cookieValue(req.headers.cookie, operatorCookieName(req.headers.host));
    const proof = req.headers[OPERATOR_PROOF_HEADER];
    return this.signIn.sessionOf(cookie, typeof proof === 'string' ? proof : undefined, this.clock.now());
  }
}
