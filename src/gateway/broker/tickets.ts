/**
 * Tickets: the one-time pass from an authenticated registration to the controller socket. 32 random
 * bytes (base64url), 30 s, consumed at most once. Behind an interface so a shared store (Redis) can make
 * "consumed once" hold across several gateways.
 */
import { randomBytes } from 'node:crypto';
import { TICKET_BYTES, TICKET_TTL_SECONDS } from '../../protocol/index.js';
import type { ControllerScope } from './scope.js';

export interface MintedTicket {
  ticket: string;
  /** Epoch ms. */
  expiresAt: number;
  /** Epoch ms on the store's own clock when it lives elsewhere (Redis), so the reply's TTL is its TTL. */
  issuedAt?: number;
}

export type ConsumeOutcome =
  | { ok: true; scope: ControllerScope }
  | { ok: false; reason: 'unknown ticket' | 'ticket already consumed' | 'ticket expired' };

export interface TicketStore {
  mint(scope: ControllerScope, now: number): MintedTicket;
  /** Atomic: of two consumers of one ticket, exactly one gets the scope. */
  consume(ticket: string, now: number): ConsumeOutcome;
  clear(): void;
}

interface TicketRecord {
  scope: ControllerScope;
  expiresAt: number;
  consumed: boolean;
}

export class InMemoryTicketStore implements TicketStore {
  private readonly tickets = new Map<string, TicketRecord>();

  constructor(private readonly ttlMs: number = TICKET_TTL_SECONDS * 1000) {}

  mint(scope: ControllerScope, now: number): MintedTicket {
    // Expired records (consumed or not) go at the next mint, so the map never grows without bound. They
    // were minted in order with one TTL, so they expire in order: the sweep stops at the first live one.
    // Walking every record made registering 1,000 controllers quadratic (~33 MB of garbage in
    // bench:pass-trace's setup, allocation sampling).
    for (const [ticket, record] of this.tickets) {
      if (record.expiresAt > now) break;
      this.tickets.delete(ticket);
    }
    const ticket = randomBytes(TICKET_BYTES).toString('base64url');
    const expiresAt = now + this.ttlMs;
    this.tickets.set(ticket, { scope, expiresAt, consumed: false });
    return { ticket, expiresAt };
  }

  consume(ticket: string, now: number): ConsumeOutcome {
    const record = this.tickets.get(ticket);
    if (!record) return { ok: false, reason: 'unknown ticket' };
    if (record.consumed) return { ok: false, reason: 'ticket already consumed' };
    // Exactly at expires_at still succeeds; strictly after is expired.
    if (now > record.expiresAt) return { ok: false, reason: 'ticket expired' };
    record.consumed = true;
    return { ok: true, scope: record.scope };
  }

  clear(): void {
    this.tickets.clear();
  }
}
