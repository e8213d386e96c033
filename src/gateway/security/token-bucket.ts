/**
 * Per-peer token buckets: each peer address may spend `capacity` requests at once and earns
 * `refillPerSecond` back. Used on the paths a stranger can hammer without any secret (pairing) or that
 * mint something per call (controller registration). Memory is bounded: past `maxPeers` the least
 * recently seen peer's bucket goes first.
 */
import type { Clock } from '../clock.js';

export interface BucketLimits {
  capacity: number;
  refillPerSecond: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

const DEFAULT_MAX_PEERS = 4096;

export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();

  constructor(
    private readonly limits: BucketLimits,
    private readonly clock: Clock,
    private readonly maxPeers = DEFAULT_MAX_PEERS,
  ) {}

  /** Spends one token of this peer's bucket; false (nothing spent) when the bucket is empty. */
  take(peer: string): boolean {
    const now = this.clock.now();
    const bucket = this.refilled(peer, now);
    // Re-insert so Map order is least-recently-used first, for eviction.
    this.buckets.delete(peer);
    this.buckets.set(peer, bucket);
    if (this.buckets.size > this.maxPeers) this.evict();
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** Seconds until this peer has a token again (at least 1). */
  retryAfterSeconds(peer: string): number {
    const bucket = this.refilled(peer, this.clock.now());
    const missing = Math.max(0, 1 - bucket.tokens);
    return Math.max(1, Math.ceil(missing / this.limits.refillPerSecond));
  }

  get size(): number {
    return this.buckets.size;
  }

  private refilled(peer: string, now: number): Bucket {
    const bucket = this.buckets.get(peer) ?? { tokens: this.limits.capacity, updatedAt: now };
    const earned = (Math.max(0, now - bucket.updatedAt) / 1000) * this.limits.refillPerSecond;
    bucket.tokens = Math.min(this.limits.capacity, bucket.tokens + earned);
    bucket.updatedAt = now;
    return bucket;
  }

  /** Drops the least recently used buckets; a dropped peer merely starts again with a full bucket. */
  private evict(): void {
    for (const peer of this.buckets.keys()) {
      if (this.buckets.size <= this.maxPeers) return;
      this.buckets.delete(peer);
    }
  }
}
