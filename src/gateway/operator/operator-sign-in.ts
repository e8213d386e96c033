/**
 * Signing a person in as the gateway's owner in their browser. The owner's CLI (operator key) or the
 * owner's terminal hands out a one-time code inside a link; the sign-in page trades it for a browser
 * session made of two secrets: an HttpOnly, SameSite=Strict cookie, and a proof the page keeps in the
 * gateway origin's localStorage and sends as a header. Cookies are shared by every port of a host, so a
 * cookie alone would reach any other local server the browser visits; localStorage is per origin, port
 * included, so only the gateway's own pages hold the proof. Everything lives in memory (hashed): a
 * restart signs everybody out.
 */
import { hash, randomBytes } from 'node:crypto';
import { secretsEqual } from '../auth/api-key.js';

export const SIGN_IN_CODE_TTL_MS = 10 * 60_000;
export const OPERATOR_SESSION_TTL_MS = 12 * 3_600_000;
/** Outstanding codes and live browser sessions kept at most; the oldest go first. */
const MAX_LIVE = 64;

const digest = (secret: string): string => hash('sha256', secret, 'base64url');
const secret = (prefix: string): string => prefix + randomBytes(32).toString('base64url');

export interface OperatorBrowserSession {
  /** The cookie's value. */
  cookie: string;
  /** The header value the gateway's pages send. */
  proof: string;
  expiresAt: number;
}

function keepAtMost<V>(map: Map<string, V>, max: number): void {
  while (map.size > max) map.delete(map.keys().next().value as string);
}

export class OperatorSignIn {
  private readonly codes = new Map<string, number>();
  private readonly sessions = new Map<string, { proof: string; expiresAt: number }>();

  /** A one-time sign-in code, valid for ten minutes. */
  mintCode(now: number): { code: string; expiresAt: number } {
    const code = secret('tgs_');
    const expiresAt = now + SIGN_IN_CODE_TTL_MS;
    this.codes.set(digest(code), expiresAt);
    keepAtMost(this.codes, MAX_LIVE);
    return { code, expiresAt };
  }

  /** Trades a code (once) for a browser session; null when the code is unknown, used or expired. */
  redeem(code: unknown, now: number): OperatorBrowserSession | null {
    if (typeof code !== 'string' || code.length > 200) return null;
    const key = digest(code);
    const expiresAt = this.codes.get(key);
    this.codes.delete(key);
    if (expiresAt === undefined || now > expiresAt) return null;
    const session = {
      cookie: secret('tgc_'),
      proof: secret('tgv_'),
      expiresAt: now + OPERATOR_SESSION_TTL_MS,
    };
    this.sessions.set(digest(session.cookie), { proof: digest(session.proof), expiresAt: session.expiresAt });
    keepAtMost(this.sessions, MAX_LIVE);
    return session;
  }

  /**
   * The live session a cookie and a proof belong to, named by a digest prefix that reveals neither
   * (limits count per session), or null.
   */
  sessionOf(cookie: string | undefined, proof: string | undefined, now: number): string | null {
    if (!cookie || !proof) return null;
    const key = digest(cookie);
    const session = this.sessions.get(key);
    if (!session) return null;
    if (now > session.expiresAt) {
      this.sessions.delete(key);
      return null;
    }
    return secretsEqual(digest(proof), session.proof) ? `browser:${key.slice(0, 16)}` : null;
  }

  signOut(cookie: string | undefined): void {
    if (cookie) this.sessions.delete(digest(cookie));
  }

  /** Every browser session ends; outstanding codes stop working. */
  signOutEverywhere(): void {
    this.sessions.clear();
    this.codes.clear();
  }
}
