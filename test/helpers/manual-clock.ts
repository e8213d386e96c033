/**
 * A clock a test steps by hand: time moves only in `advance`, which fires every timer that falls due on
 * the way, oldest first, each at its own time. A test drives idle-outs, admission windows and deadlines
 * with it instead of sleeping through them, and asserts what happened, never how long it took.
 */
import type { Timer, TimerClock } from '../../src/gateway/clock.js';

interface Pending {
  at: number;
  seq: number;
  fire: () => void;
}

export class ManualClock implements TimerClock {
  private time: number;
  private seq = 0;
  private readonly pending = new Set<Pending>();

  constructor(start = Date.UTC(2026, 0, 1)) {
    this.time = start;
  }

  now(): number {
    return this.time;
  }

  setTimer(fire: () => void, ms: number): Timer {
    const entry: Pending = { at: this.time + Math.max(0, ms), seq: this.seq++, fire };
    this.pending.add(entry);
    return { cancel: () => void this.pending.delete(entry), keepAlive: () => undefined };
  }

  /** Timers set and not yet fired or cancelled. */
  get timers(): number {
    return this.pending.size;
  }

  /** Moves time forward by `ms`, firing the timers due by then (those they set included). */
  advance(ms: number): void {
    const until = this.time + ms;
    for (;;) {
      let next: Pending | undefined;
      for (const entry of this.pending)
        if (
          entry.at <= until &&
          (!next || entry.at < next.at || (entry.at === next.at && entry.seq < next.seq))
        )
          next = entry;
      if (!next) break;
      this.pending.delete(next);
      this.time = Math.max(this.time, next.at);
      next.fire();
    }
    this.time = until;
  }
}

/**
 * Whether `promise` has settled once the work already queued has run: with time on a manual clock
 * nothing else can still be coming, so "not yet" needs no waiting window.
 */
export async function settledNow(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}
