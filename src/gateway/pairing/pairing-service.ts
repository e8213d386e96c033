/**
 * The gateway side of one-click pairing. An extension asks (its identity is its Origin), a person
 * approves on the gateway's page or with `tabgate pair approve CODE`, the extension collects a token
 * once, and that token authenticates as the gateway's owner with the scope of a controller only.
 * Revoking a grant tells the listeners (the controller socket layer) to drop what it holds.
 */
import { z } from 'zod';
import { TabgateError } from '../../protocol/index.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../../log/logger.js';
import { ApprovalLimiter, MAX_WRONG_POSTS_PER_REQUEST } from './approval-limiter.js';
import { normalizePairingCode } from './code.js';
import type { PairingGrant } from './grant-store.js';
import type { PairingGrants } from './grant-mirror.js';
import { mintToken, parseToken, secretMatches } from './pairing-token.js';
import { PAIRING_TTL_SECONDS, PendingPairings, type PairingRequest } from './pending-pairings.js';
import { secretsEqual } from '../auth/api-key.js';

export const MAX_PAIRING_NAME_CHARS = 80;

/** The extension's pairing request: the name the owner will see, printable, trimmed. */
const pairingStartBody = z.object({
  name: z
    .string()
    .trim()
    .min(1)
    .max(MAX_PAIRING_NAME_CHARS)
    // eslint-disable-next-line no-control-regex -- control characters would forge lines on the approval page
    .refine((name) => !/[\u0000-\u001f\u007f]/.test(name)),
});

export interface PairingServiceOptions {
  grants: PairingGrants;
  clock: Clock;
  log: Logger;
  /** Whether an Origin is an extension the gateway accepts (tabgate's own, or a configured one). */
  isAllowedOrigin(origin: string): boolean;
}

export interface PairingStarted {
  pairing_id: string;
  code: string;
  expires_in_seconds: number;
}

export interface PairingSummary {
  pairing_id: string;
  name: string;
  origin: string;
  state: PairingRequest['state'];
}

export type CollectOutcome =
  | { status: 'pending'; expires_in_seconds: number }
  | { status: 'approved'; token: string; grant: PairingGrant };

const summaryOf = (r: PairingRequest): PairingSummary => ({
  pairing_id: r.id,
  name: r.name,
  origin: r.origin,
  state: r.state,
});

export class PairingService {
  private readonly pending = new PendingPairings();
  private readonly limiter = new ApprovalLimiter();
  private readonly revokeListeners = new Set<(grantId: string) => void>();
  private readonly requestListeners = new Set<(request: PairingRequest) => void>();

  constructor(private readonly o: PairingServiceOptions) {}

  /** `POST /v1/browser-control/pair`: an allowed extension origin asks to pair. */
  start(origin: string | undefined, body: unknown): PairingStarted {
    if (origin === undefined || !this.o.isAllowedOrigin(origin)) {
      throw new TabgateError('forbidden_origin', 'Only an allowed browser extension may ask to pair.');
    }
    const parsed = pairingStartBody.safeParse(body);
    if (!parsed.success) {
      throw new TabgateError(
        'invalid_request',
        `name: expected a display name of 1 to ${MAX_PAIRING_NAME_CHARS} printable characters.`,
      );
    }
    const { name } = parsed.data;
    const request = this.pending.create({ name, origin: origin.toLowerCase() }, this.o.clock.now());
    // The code in this line is what the person compares; it is not a credential on its own.
    this.o.log.info('pairing requested: compare the code with the extension, then approve', {
      name,
      origin: request.origin,
      code: request.code,
      approve: `tabgate pair approve ${request.code}`,
    });
    for (const listener of this.requestListeners) listener(request);
    return { pairing_id: request.id, code: request.code, expires_in_seconds: PAIRING_TTL_SECONDS };
  }

  /** What the approval page shows; throws while the request is not waiting for a decision. */
  pageFor(pairingId: string): PairingRequest {
    return this.requirePending(this.pending.get(pairingId, this.o.clock.now()));
  }

  /** `tabgate pair approve|deny CODE`: `credential` is the owner's credential that sent it. */
  decideByCode(code: unknown, decision: 'approved' | 'denied', credential: string): PairingSummary {
    const now = this.o.clock.now();
    this.limiter.check(credential, now);
    const canonical = normalizePairingCode(code);
    const request = canonical ? this.pending.byCode(canonical, now) : null;
    if (!request) {
      this.limiter.fail(credential, now);
      throw new TabgateError('pairing_code_invalid', 'No pairing request is waiting with that code.');
    }
    return this.decide(request, decision, now);
  }

  /**
   * The approval page's Approve/Deny buttons, carrying the page's anti-CSRF token, from the owner's
   * signed-in browser session `credential`. A request that sees too many wrong tokens is denied.
   */
  decideFromPage(
    pairingId: string,
    pageToken: unknown,
    decision: 'approved' | 'denied',
    credential: string,
  ): PairingSummary {
    const now = this.o.clock.now();
    this.limiter.check(credential, now);
    const request = this.pending.get(pairingId, now);
    if (!request || typeof pageToken !== 'string' || !secretsEqual(pageToken, request.pageToken)) {
      this.limiter.fail(credential, now);
      if (request?.state === 'pending' && ++request.wrongPosts >= MAX_WRONG_POSTS_PER_REQUEST) {
        this.pending.decide(request, 'denied', now);
        this.o.log.warn('pairing request denied after too many wrong approval posts', {
          name: request.name,
          origin: request.origin,
        });
      }
      throw new TabgateError(
        'pairing_forbidden',
        'This approval did not come from the pairing page; reload it.',
      );
    }
    return this.decide(this.requirePending(request), decision, now);
  }

  /**
   * `POST /v1/browser-control/pair/{id}/token`: the extension polls. Only the Origin that asked may
   * collect, and the token is handed out exactly once, in this response body.
   */
  async collect(pairingId: string, origin: string | undefined): Promise<CollectOutcome> {
    const now = this.o.clock.now();
    const request = this.pending.get(pairingId, now);
    if (!request || origin === undefined || origin.toLowerCase() !== request.origin) {
      throw new TabgateError(
        'pairing_not_found',
        'No pairing request with that id is waiting for this extension.',
      );
    }
    switch (request.state) {
      case 'pending':
        return {
          status: 'pending',
          expires_in_seconds: Math.max(0, Math.ceil((request.expiresAt - now) / 1000)),
        };
      case 'denied':
        throw new TabgateError('pairing_denied', 'The pairing request was denied.');
      case 'expired':
        throw new TabgateError(
          'pairing_expired',
          'The pairing request expired before it was approved and collected.',
        );
      case 'approved': {
        const minted = mintToken();
        // Finished before the write, so a second poll meanwhile cannot mint a second token.
        this.pending.finish(request);
        const grant = await this.o.grants.insert({
          grantId: minted.grantId,
          secretHash: minted.secretHash,
          name: request.name,
          origin: request.origin,
          createdAt: new Date(now).toISOString(),
        });
        this.o.log.info('pairing completed', {
          grant_id: grant.grant_id,
          name: grant.name,
          origin: grant.origin,
        });
        return { status: 'approved', token: minted.token, grant };
      }
    }
  }

  /**
   * `DELETE /v1/browser-control/pair/{id}`: the extension that asked abandons its request (the person
   * pressed Cancel). Approved or not, it is forgotten: its code approves nothing and no token is minted.
   */
  withdraw(pairingId: string, origin: string | undefined): void {
    const request = this.pending.get(pairingId, this.o.clock.now());
    if (!request || origin === undefined || origin.toLowerCase() !== request.origin) {
      throw new TabgateError(
        'pairing_not_found',
        'No pairing request with that id is waiting for this extension.',
      );
    }
    this.pending.finish(request);
    this.o.log.info('pairing withdrawn by the extension', { name: request.name, origin: request.origin });
  }

  /** The live grant a bearer token belongs to, or null (not a pairing token, unknown, revoked). */
  verifyToken(bearer: string): PairingGrant | null {
    const parsed = parseToken(bearer);
    if (!parsed) return null;
    const hash = this.o.grants.liveSecretHash(parsed.grantId);
    if (!hash || !secretMatches(parsed.secret, hash)) return null;
    const grant = this.o.grants.get(parsed.grantId);
    if (grant) this.o.grants.touch(grant, new Date(this.o.clock.now()));
    return grant;
  }

  listGrants(): PairingGrant[] {
    return this.o.grants.list();
  }

  /** Whether a pairing request with this id is remembered (pending, decided or finished lately). */
  knows(pairingId: string): boolean {
    return this.pending.get(pairingId, this.o.clock.now()) !== null;
  }

  listPending(): PairingSummary[] {
    return this.pending.pending(this.o.clock.now()).map(summaryOf);
  }

  /** Revokes a grant; its live controller sockets are closed by the listeners before this resolves. */
  async revoke(grantId: string): Promise<PairingGrant> {
    const grant = this.o.grants.get(grantId);
    if (!grant)
      throw new TabgateError(
        'pairing_grant_not_found',
        `No paired extension with id ${JSON.stringify(grantId)}.`,
      );
    if (await this.o.grants.revoke(grantId, new Date(this.o.clock.now()))) {
      this.o.log.info('pairing revoked', { grant_id: grantId, name: grant.name });
    }
    this.revoked(grantId);
    return this.o.grants.get(grantId) as PairingGrant;
  }

  /** A grant was revoked (here, or through another gateway sharing the store): its sockets go. */
  revoked(grantId: string): void {
    for (const listener of this.revokeListeners) listener(grantId);
  }

  /** Subscribes to new pairing requests (the owner's terminal is told); returns the unsubscribe function. */
  onRequested(listener: (request: PairingRequest) => void): () => void {
    this.requestListeners.add(listener);
    return () => this.requestListeners.delete(listener);
  }

  /** Subscribes to revocations; returns the unsubscribe function. */
  onRevoke(listener: (grantId: string) => void): () => void {
    this.revokeListeners.add(listener);
    return () => this.revokeListeners.delete(listener);
  }

  private decide(request: PairingRequest, decision: 'approved' | 'denied', now: number): PairingSummary {
    this.pending.decide(request, decision, now);
    this.o.log.info(`pairing ${decision}`, { name: request.name, origin: request.origin });
    return summaryOf(request);
  }

  private requirePending(request: PairingRequest | null): PairingRequest {
    if (!request)
      throw new TabgateError(
        'pairing_not_found',
        'This pairing request does not exist; start again from the extension.',
      );
    if (request.state === 'expired')
      throw new TabgateError(
        'pairing_expired',
        'This pairing request expired; start again from the extension.',
      );
    if (request.state !== 'pending')
      throw new TabgateError('pairing_not_found', `This pairing request was already ${request.state}.`);
    return request;
  }
}
