/**
 * Pairing requests waiting for a person's decision. In memory on purpose: a request lives 120 s, and a
 * gateway restart simply makes the extension ask again. A request is decided once (its code then stops
 * working), and an approved one is collected once; after that it is gone.
 */
import { randomBytes } from 'node:crypto';
import { TabgateError } from '../../protocol/index.js';
import { newPairingCode } from './code.js';

export const PAIRING_TTL_SECONDS = 120;
/** How long an approved request waits for the extension to collect its token. */
export const COLLECT_WINDOW_MS = 120_000;
/** How long a finished request is remembered, so a late poll learns "expired"/"denied", not "unknown". */
const TOMBSTONE_MS = 600_000;
const MAX_PENDING = 16;
const MAX_PENDING_PER_ORIGIN = 4;

export type PairingState = 'pending' | 'approved' | 'denied' | 'expired';

export interface PairingRequest {
  id: string;
  code: string;
  name: string;
  origin: string;
  /** The approval page's anti-CSRF token: bound to this request, only ever inside its page. */
  pageToken: string;
  createdAt: number;
  expiresAt: number;
  state: PairingState;
  decidedAt: number | null;
  /** Approval page posts for this request whose page token was wrong. */
  wrongPosts: number;
}

export class PendingPairings {
  private readonly byId = new Map<string, PairingRequest>();

  create(input: { name: string; origin: string }, now: number): PairingRequest {
    this.sweep(now);
    const live = [...this.byId.values()].filter((r) => r.state === 'pending');
    if (
      live.length >= MAX_PENDING ||
      live.filter((r) => r.origin === input.origin).length >= MAX_PENDING_PER_ORIGIN
    ) {
      throw new TabgateError(
        'rate_limited',
        'Too many pairing requests are waiting; approve or deny them first.',
      );
    }
    let code = newPairingCode();
    while (live.some((r) => r.code === code)) code = newPairingCode();
    const request: PairingRequest = {
      id: randomBytes(16).toString('base64url'),
      code,
      name: input.name,
      origin: input.origin,
      pageToken: randomBytes(32).toString('base64url'),
      createdAt: now,
      expiresAt: now + PAIRING_TTL_SECONDS * 1000,
      state: 'pending',
      decidedAt: null,
      wrongPosts: 0,
    };
    this.byId.set(request.id, request);
    return request;
  }

  /** The request with this id, its state brought up to date; null when unknown or long gone. */
  get(id: string, now: number): PairingRequest | null {
    this.sweep(now);
    return this.byId.get(id) ?? null;
  }

  /** The pending request showing this code, if any. */
  byCode(code: string, now: number): PairingRequest | null {
    this.sweep(now);
    for (const request of this.byId.values())
      if (request.state === 'pending' && request.code === code) return request;
    return null;
  }

  pending(now: number): PairingRequest[] {
    this.sweep(now);
    return [...this.byId.values()].filter((r) => r.state === 'pending');
  }

  decide(request: PairingRequest, state: 'approved' | 'denied', now: number): void {
    request.state = state;
    request.decidedAt = now;
  }

  /** The token went out: the request is finished and forgotten. */
  finish(request: PairingRequest): void {
    this.byId.delete(request.id);
  }

  private sweep(now: number): void {
    for (const [id, request] of this.byId) {
      if (request.state === 'pending' && now > request.expiresAt) request.state = 'expired';
      if (request.state === 'approved' && now > (request.decidedAt ?? 0) + COLLECT_WINDOW_MS) {
        request.state = 'expired';
      }
      const end = Math.max(request.expiresAt, request.decidedAt ?? 0) + TOMBSTONE_MS;
      if (now > end) this.byId.delete(id);
    }
  }
}
