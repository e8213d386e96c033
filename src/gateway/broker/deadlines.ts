/**
 * Command deadlines on one timer. Every command of a broker has the same timeout, so deadlines fall in
 * dispatch order: the timer waits for the oldest one, and a command that ends in time only leaves the
 * queue, with no timer set or cleared for it.
 */
export class DeadlineQueue {
  /** Command id → when it expires (monotonic ms), oldest first. */
  private readonly due = new Map<string, number>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly timeoutMs: number,
    private readonly expire: (commandId: string) => void,
  ) {}

  add(commandId: string): void {
    this.due.set(commandId, performance.now() + this.timeoutMs);
    if (!this.timer) this.arm(this.timeoutMs);
    else if (this.due.size === 1) this.timer.ref();
  }

  remove(commandId: string): void {
    // With nothing pending the timer stays set for the next command but no longer keeps the process alive.
    if (this.due.delete(commandId) && this.due.size === 0) this.timer?.unref();
  }

  clear(): void {
    this.due.clear();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => this.sweep(), ms);
  }

  private sweep(): void {
    this.timer = null;
    const now = performance.now();
    try {
      for (const [commandId, at] of this.due) {
        if (at > now) break;
        this.due.delete(commandId);
        this.expire(commandId);
      }
    } finally {
      // Even if an expiry threw, the commands after it keep a timer: the oldest one's deadline.
      if (this.timer) clearTimeout(this.timer);
      this.timer = null;
      const oldest = this.due.values().next();
      if (!oldest.done) this.arm(Math.max(0, oldest.value - performance.now()));
    }
  }
}
