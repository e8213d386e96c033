/**
 * Pairing tokens: `tgp_<grant id>_<secret>`, the secret being 32 random bytes (base64url). The gateway
 * keeps only sha256(secret); the grant id in front lets it find the one row to compare against, so the
 * comparison itself is constant-time (`timingSafeEqual`) instead of an indexed lookup on secret material.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'tgp_';
const GRANT_ID_PATTERN = /^[a-f0-9]{16}$/;
const SECRET_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export interface MintedToken {
  grantId: string;
  /** Handed to the extension once, in a response body; never stored, logged or put in a URL. */
  token: string;
  secretHash: Buffer;
}

export const newGrantId = (): string => randomBytes(8).toString('hex');

export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret, 'utf8').digest();
}

export function mintToken(): MintedToken {
  const grantId = newGrantId();
  const secret = randomBytes(32).toString('base64url');
  return { grantId, token: `${PREFIX}${grantId}_${secret}`, secretHash: hashSecret(secret) };
}

/** Splits a bearer that looks like a pairing token; null for anything else (an API key, garbage). */
export function parseToken(bearer: string): { grantId: string; secret: string } | null {
  if (!bearer.startsWith(PREFIX)) return null;
  const grantId = bearer.slice(PREFIX.length, PREFIX.length + 16);
  const separator = bearer.charAt(PREFIX.length + 16);
  const secret = bearer.slice(PREFIX.length + 17);
  if (separator !== '_' || !GRANT_ID_PATTERN.test(grantId) || !SECRET_PATTERN.test(secret)) return null;
  return { grantId, secret };
}

export function secretMatches(secret: string, storedHash: Buffer): boolean {
  const presented = hashSecret(secret);
  return presented.length === storedHash.length && timingSafeEqual(presented, storedHash);
}
