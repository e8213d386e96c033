/**
 * Wrong approvals (a mistyped or guessed code, a stale or forged approval page post) count here, per
 * credential of the owner that made them: past a handful a minute, that credential's approvals are
 * refused with `rate_limited` until the window slides, so nobody can walk the code space of a waiting
 * request. Approvals need the owner's credential before they reach this, so nobody but the owner can
 * spend the owner's budget, and one of the owner's credentials (a browser session showing a stale page)
 * cannot block another (the operator key of `tabgate pair approve`). A pairing request itself is dropped
 * after too many wrong posts for it (`MAX_WRONG_POSTS_PER_REQUEST`, in the pairing service).
 */
import { TabgateError } from '../../protocol/index.js';

export const APPROVAL_WINDOW_MS = 60_000;
/** Wrong approvals one credential may make per window. */
export const MAX_WRONG_APPROVALS_PER_CREDENTIAL = 5;
/** Wrong page posts (a page token that does not match) one pairing request survives; then it is denied. */
export const MAX_WRONG_POSTS_PER_REQUEST = 5;

export class ApprovalLimiter {
  private readonly failures = new Map<string, number[]>();

  /** Throws `rate_limited` while this credential made too many wrong approvals in the last minute. */
  check(credential: string, now: number): void {
    const recent = this.recent(credential, now);
    if (recent.length >= MAX_WRONG_APPROVALS_PER_CREDENTIAL) {
      const wait = Math.ceil((APPROVAL_WINDOW_MS - (now - (recent[0] ?? now))) / 1000);
      throw new TabgateError(
        'rate_limited',
        `Too many wrong pairing approvals; try again in ${wait} s with the code the extension shows.`,
      );
    }
  }

  fail(credential: string, now: number): void {
    this.failures.set(credential, [...this.recent(credential, now), now]);
  }

  private recent(credential: string, now: number): number[] {
    const recent = (this.failures.get(credential) ?? []).filter((at) => now - at < APPROVAL_WINDOW_MS);
    if (recent.length === 0) this.failures.delete(credential);
    else this.failures.set(credential, recent);
    return recent;
  }
}
