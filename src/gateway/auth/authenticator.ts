/**
 * Turns a request's credential and peer into a Caller, in this one place. The principal comes from the
 * credential, never from a client field; the transport family comes from the peer address.
 * Each kind of bearer is a CredentialVerifier: the API key here, a pairing token in
 * pairing/pairing-credential.ts (the same principal, `credential: 'pairing_token'`); routes that need
 * the full API key check `caller.credential`.
 */
import type { TransportFamily } from '../../protocol/index.js';
import type { Caller } from '../service.js';
import type { ApiKeyVerifier } from './api-key.js';

/** The API key acts as the gateway's owner: a fixed id, never derived from secret material. */
export const OWNER_PRINCIPAL_ID = 'owner';
export const DEFAULT_PROFILE_ID = 'default';

export interface Identity {
  principalId: string;
  profileId: string;
  credential: Caller['credential'];
  /** Which grant a pairing token belongs to (for revocation); absent for the API key. */
  credentialId?: string;
}

/** One kind of bearer credential; returns null when the token is not one of its own. */
export interface CredentialVerifier {
  verify(bearer: string): Identity | null;
}

export function apiKeyCredential(verifier: ApiKeyVerifier): CredentialVerifier {
  const owner: Identity = Object.freeze({
    principalId: OWNER_PRINCIPAL_ID,
    profileId: DEFAULT_PROFILE_ID,
    credential: 'api_key',
  });
  return { verify: (bearer) => (verifier.verify(bearer) ? owner : null) };
}

/** `127.0.0.0/8`, `::1` and IPv4-mapped loopback are local; everything else (or unknown) is remote. */
export function transportFamilyOf(remoteAddress: string | undefined): TransportFamily {
  if (!remoteAddress) return 'remote-api';
  // The common peers, answered without a regex: every request asks.
  if (remoteAddress === '127.0.0.1' || remoteAddress === '::1') return 'local-api';
  const address = remoteAddress.toLowerCase();
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) ? 'local-api' : 'remote-api';
}

const BEARER = /^Bearer +(\S+) *$/i;

/** The bearer token of an `Authorization` header, or null. */
export function bearerOf(header: string | undefined): string | null {
  if (!header) return null;
  return BEARER.exec(header)?.[1] ?? null;
}

export class Authenticator {
  /** Callers made from an identity a verifier hands out again and again (the API key's), per family. */
  private readonly callers = new WeakMap<Identity, Partial<Record<TransportFamily, Caller>>>();

  constructor(private readonly verifiers: readonly CredentialVerifier[]) {}

  /** The caller behind an Authorization header from a peer, or null when no verifier accepts it. */
  authenticate(authorization: string | undefined, remoteAddress: string | undefined): Caller | null {
    const bearer = bearerOf(authorization);
    if (bearer === null) return null;
    for (const verifier of this.verifiers) {
      const identity = verifier.verify(bearer);
      if (identity) return this.callerOf(identity, transportFamilyOf(remoteAddress));
    }
    return null;
  }

  private callerOf(identity: Identity, transportFamily: TransportFamily): Caller {
    let byFamily = this.callers.get(identity);
    if (!byFamily) this.callers.set(identity, (byFamily = {}));
    return (byFamily[transportFamily] ??= Object.freeze({ ...identity, transportFamily }));
  }
}
