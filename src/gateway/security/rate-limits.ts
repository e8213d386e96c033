/**
 * Rate limits on the routes that mint something per call or that anyone on the machine can reach
 * without a secret: controller registration (tickets) and pairing (requests, token polls, the approval
 * page). A subject past its bucket gets 429 `rate_limited` before the route does any work.
 *
 * What a bucket belongs to is chosen so that a stranger can never spend someone else's budget:
 * registration is counted per credential (requests without one share a bucket of their own); a pairing path naming a live pairing request
 * is counted per request (its id is a secret only the extension that asked and the owner hold); every
 * other pairing path per peer, with all of loopback one peer (`peer.ts`). The owner's signed-in browser
 * is never limited here. The limits are generous for one browser (the extension polls pairing once a
 * second) and tight for a flood.
 */
import type { IncomingMessage } from 'node:http';
import { TabgateError } from '../../protocol/index.js';
import type { Clock } from '../clock.js';
import type { RateLimitKind, Route, RouteContext } from '../http/route-table.js';
import { peerOf } from './peer.js';
import { TokenBuckets, type BucketLimits } from './token-bucket.js';

export type RateLimitSettings = Record<RateLimitKind, BucketLimits> & {
  /** `POST /v1/browser-control/register`, per credential. */
  register: BucketLimits;
  /**
   * Everything under `/v1/browser-control/pair` and `/pair/`: the pairing paths that need no API key.
   * (`/v1/pairings` needs the operator key; wrong codes there are limited by the approval limiter.)
   */
  pairing: BucketLimits;
};

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  register: { capacity: 60, refillPerSecond: 10 },
  pairing: { capacity: 60, refillPerSecond: 5 },
};

/** Registration at `perSecond` (`gateway.limits.register_per_second`), bursting to a second's worth. */
export function registerLimits(perSecond: number): BucketLimits {
  return {
    capacity: Math.max(DEFAULT_RATE_LIMITS.register.capacity, Math.ceil(perSecond)),
    refillPerSecond: perSecond,
  };
}

/** What the limits need to know about a request beyond its route. */
export interface LimitSubjects {
  /** Whether a pairing request with this id is known: its polls and pages then have a bucket of their own. */
  knownPairing(id: string): boolean;
  /** Whether the request comes from the gateway's owner (operator key or signed-in browser). */
  isOwner(req: IncomingMessage): boolean;
  /** The credential the request's bearer proves (registration authenticates in its handler), or null. */
  credentialOf(req: IncomingMessage): string | null;
}

export type LimitedKind = RateLimitKind;

export class RateLimits {
  private readonly buckets: Record<LimitedKind, TokenBuckets>;

  constructor(
    settings: RateLimitSettings,
    clock: Clock,
    private readonly subjects: LimitSubjects,
  ) {
    this.buckets = {
      register: new TokenBuckets(settings.register, clock),
      pairing: new TokenBuckets(settings.pairing, clock),
    };
  }

  /** Throws `rate_limited` when this subject has spent its bucket for this kind of route. */
  check(kind: LimitedKind, subject: string): void {
    const buckets = this.buckets[kind];
    if (buckets.take(subject)) return;
    throw new TabgateError(
      'rate_limited',
      `Too many ${kind === 'register' ? 'registrations' : 'pairing requests'}; ` +
        `try again in ${buckets.retryAfterSeconds(subject)} s.`,
    );
  }

  /** The bucket a request draws from, or null when it is not limited at all (the owner's). */
  subjectOf(kind: LimitedKind, ctx: Pick<RouteContext, 'req' | 'params' | 'caller'>): string | null {
    const peer = `peer:${peerOf(ctx.req.socket.remoteAddress)}`;
    if (kind === 'register') {
      const caller = ctx.caller;
      const credential = caller
        ? `${caller.credential}:${caller.credentialId ?? ''}`
        : this.subjects.credentialOf(ctx.req);
      // Requests without a credential have a bucket apart, so they can never spend a credential's.
      return credential === null ? `unauthenticated:${peer}` : `credential:${credential}`;
    }
    if (this.subjects.isOwner(ctx.req)) return null;
    const id = ctx.params.id;
    return id !== undefined && this.subjects.knownPairing(id) ? `pairing:${id}` : peer;
  }

  /** The routes with a limit check in front of each that declares one; others are returned as they are. */
  wrap(routes: Route[]): Route[] {
    return routes.map((route) => {
      const kind = route.limit;
      if (!kind) return route;
      return {
        ...route,
        handle: (ctx) => {
          const subject = this.subjectOf(kind, ctx);
          if (subject !== null) this.check(kind, subject);
          return route.handle(ctx);
        },
      };
    });
  }
}
