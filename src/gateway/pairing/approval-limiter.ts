/**
 * Wrong approvals (a mistyped or guessed code, a forged approval page post) count here; past a handful
 * a minute, every approval is refused with `rate_limited` until the window slides, so nobody can walk
 * the code space of a waiting request.
 */
import { TabgateError } from '../../protocol/index.js';

const WINDOW_MS = 60_000;
const MAX_FAILURES = 5;

export class ApprovalLimiter {
  private failures: number[] = [];

  /** Throws `rate_limited` while too many wrong approvals happened in the last minute. */
  check(now: number): void {
    this.failures = this.failures.filter((at) => now - at < WINDOW_MS);
    if (this.failures.length >= MAX_FAILURES) {
      const wait = Math.ceil((WINDOW_MS - (now - (this.failures[0] ?? now))) / 1000);
      throw new TabgateError(
        'rate_limited',
        `Too many wrong pairing approvals; try again in ${wait} s with the code the extension shows.`,
      );
    }
  }

  fail(now: number): void {
    this.failures.push(now);
  }
}
