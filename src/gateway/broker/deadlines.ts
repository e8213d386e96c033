import { systemTimers, timersOf, type Clock, type Timer, type TimerClock } from '../clock.js';

/**
 * Command deadlines on one timer. Every command of a broker has the same timeout, so deadlines fall in
 * dispatch order: the timer waits for the oldest one, and a command that ends in time only leaves the
 * queue, with no timer set or cleared for it. A command that waits for a person's decision has its
 * deadline moved later (`postpone`); the few moved ones are kept apart, in no order, and the timer
 * waits for whichever of the two comes first.
 */
export class DeadlineQueue {
  /** Command id → when it expires (on the clock's time), oldest first. */
  private readonly due = new Map<string, number>();
  /** Deadlines moved past their place in dispatch order. */
  private readonly moved = new Map<string, number>();
  private timer: Timer | null = null;
  /** When the armed timer fires. */
  private timerAt = Infinity;
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
    const at = this.clock.now() + this.timeoutMs;
    this.due.set(commandId, at);
    // A timer armed for a moved deadline may be later than this one.
    if (!this.timer || this.timerAt > at) this.arm(at);
    else if (this.size === 1) this.timer.keepAlive(true);
  }

  /** When the command expires now; undefined once it left the queue. */
  deadlineOf(commandId: string): number | undefined {
    return this.due.get(commandId) ?? this.moved.get(commandId);
  }

  /** Moves a command's deadline `byMs` later; false when it is not in the queue. */
  postpone(commandId: string, byMs: number): boolean {
    const at = this.deadlineOf(commandId);
    if (at === undefined) return false;
    this.due.delete(commandId);
    this.moved.set(commandId, at + Math.max(0, byMs));
    // The timer may still be armed for the old deadline: it then finds nothing due and re-arms.
    return true;
  }

  remove(commandId: string): void {
    const removed = this.due.delete(commandId) || this.moved.delete(commandId);
    // With nothing pending the timer stays set for the next command but no longer keeps the process alive.
    if (removed && this.size === 0) this.timer?.keepAlive(false);
  }

  clear(): void {
    this.due.clear();
    this.moved.clear();
    this.disarm();
  }

  private get size(): number {
    return this.due.size + this.moved.size;
  }

  private disarm(): void {
    this.timer?.cancel();
    this.timer = null;
    this.timerAt = Infinity;
  }

  private arm(at: number): void {
    this.timer?.cancel();
    this.timerAt = at;
    this.timer = this.clock.setTimer(() => this.sweep(), Math.max(0, at - this.clock.now()));
  }

  private sweep(): void {
    this.timer = null;
    this.timerAt = Infinity;
    const now = this.clock.now();
    try {
      for (const [commandId, at] of this.due) {
        if (at > now) break;
        this.due.delete(commandId);
        this.expire(commandId);
      }
      for (const [commandId, at] of this.moved) {
        if (at > now) continue;
        this.moved.delete(commandId);
        this.expire(commandId);
      }
    } finally {
      // Even if an expiry threw, the commands after it keep a timer: the earliest deadline left.
      let next = this.due.values().next().value ?? Infinity;
      for (const at of this.moved.values()) next = Math.min(next, at);
      if (next !== Infinity) this.arm(next);
    }
  }
}
