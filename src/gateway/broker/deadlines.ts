import { systemTimers, timersOf, type Clock, type Timer, type TimerClock } from '../clock.js';

/**
 * Command deadlines on one timer. Every command of a broker has the same timeout, so deadlines fall in
 * dispatch order: the timer waits for the oldest one, and a command that ends in time only leaves the
 * queue, with no timer set or cleared for it.
 */
export class DeadlineQueue {
  /** Command id → when it expires (on the clock's time), oldest first. */
  private readonly due = new Map<string, number>();
  private timer: Timer | null = null;
  private readonly clock: TimerClock;

  /**
   * `clock`: the broker's. When it can wake the queue (a test's manual clock) the deadlines run on it;
   * the wall clock cannot, and they run on the system's monotonic timers.
   */
  constructor(
    private readonly timeoutMs: number,
    private readonly expire: (commandId: string) => void,
    clock?: Clock,
  ) {
    this.clock = timersOf(clock ?? systemTimers);
  }

  add(commandId: string): void {
    this.due.set(commandId, this.clock.now() + this.timeoutMs);
    if (!this.timer) this.arm(this.timeoutMs);
    else if (this.due.size === 1) this.timer.keepAlive(true);
  }

  remove(commandId: string): void {
    // With nothing pending the timer stays set for the next command but no longer keeps the process alive.
    if (this.due.delete(commandId) && this.due.size === 0) this.timer?.keepAlive(false);
  }

  clear(): void {
    this.due.clear();
    this.disarm();
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  private arm(ms: number): void {
    this.timer = this.clock.setTimer(() => this.sweep(), ms);
  }

  private sweep(): void {
    this.timer = null;
    const now = this.clock.now();
    try {
      for (const [commandId, at] of this.due) {
        if (at > now) break;
        this.due.delete(commandId);
        this.expire(commandId);
      }
    } finally {
      // Even if an expiry threw, the commands after it keep a timer: the oldest one's deadline.
      this.disarm();
      const oldest = this.due.values().next();
      if (!oldest.done) this.arm(Math.max(0, oldest.value - this.clock.now()));
    }
  }
}
