/**
 * Rate limits on the routes that mint something per call or that anyone on the machine can reach
 * without a secret: controller registration (tickets) and pairing (requests, token polls, approvals).
 * A peer past its bucket gets 429 `rate_limited` before the route does any work. Other peers are not
 * affected. The limits are generous for one browser (the extension polls pairing once a second) and
 * tight for a flood.
 */
import { REGISTER_PATH, TabgateError } from '../../protocol/index.js';
import type { Clock } from '../clock.js';
import type { Route } from '../http/route-table.js';
import { TokenBuckets, type BucketLimits } from './token-bucket.js';

export interface RateLimitSettings {
  /** `POST /v1/browser-control/register`. */
  register: BucketLimits;
  /**
   * Everything under `/v1/browser-control/pair` and `/pair/`: the pairing paths that need no API key.
   * (`/v1/pairings` needs the key; wrong codes there are limited by the pairing approval limiter.)
   */
  pairing: BucketLimits;
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  register: { capacity: 60, refillPerSecond: 10 },
  pairing: { capacity: 60, refillPerSecond: 5 },
};

const PAIRING_PATHS = /^\/(v1\/browser-control\/pair|pair)(\/|$)/;

export type LimitedKind = keyof RateLimitSettings;

/** Which bucket a route draws from, or null when it is not limited. */
export function limitedKindOf(route: Pick<Route, 'path'>): LimitedKind | null {
  if (route.path === REGISTER_PATH) return 'register';
  if (PAIRING_PATHS.test(route.path)) return 'pairing';
  return null;
}

/** IPv4-mapped addresses count as their IPv4 peer, so one peer is one bucket. */
export function peerOf(remoteAddress: string | undefined): string {
  const address = (remoteAddress ?? 'unknown').toLowerCase();
  return address.startsWith('::ffff:') ? address.slice(7) : address;
}

export class RateLimits {
  private readonly buckets: Record<LimitedKind, TokenBuckets>;

  constructor(settings: RateLimitSettings, clock: Clock) {
    this.buckets = {
      register: new TokenBuckets(settings.register, clock),
      pairing: new TokenBuckets(settings.pairing, clock),
    };
  }

  /** Throws `rate_limited` when this peer has spent its bucket for this kind of route. */
  check(kind: LimitedKind, remoteAddress: string | undefined): void {
    const peer = peerOf(remoteAddress);
    const buckets = this.buckets[kind];
    if (buckets.take(peer)) return;
    throw new TabgateError(
      'rate_limited',
      `Too many ${kind === 'register' ? 'registrations' : 'pairing requests'} from this address; ` +
        `try again in ${buckets.retryAfterSeconds(peer)} s.`,
    );
  }

  /** The routes with a limit check in front of each limited one; others are returned as they are. */
  wrap(routes: Route[]): Route[] {
    return routes.map((route) => {
      const kind = limitedKindOf(route);
      if (!kind) return route;
      return {
        ...route,
        handle: (ctx) => {
          this.check(kind, ctx.req.socket.remoteAddress);
          return route.handle(ctx);
        },
      };
    });
  }
}
