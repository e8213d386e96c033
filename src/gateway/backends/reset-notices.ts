/**
 * Which sessions lost their browser to the idle sweep and have not been told yet. The first result
 * after such a reset carries a `session_reset` notice, once; a refused call leaves the news for the next.
 */
import type { BrowserSettings } from '../config/browser-settings.js';

/** Bounded: sessions that never call again are forgotten oldest first. */
const MAX_RESET_NOTICES = 10_000;

export class ResetNotices {
  private readonly pending = new Set<string>();

  constructor(private readonly settings: BrowserSettings) {}

  mark(sessionId: string): void {
    this.pending.add(sessionId);
    for (const oldest of this.pending) {
      if (this.pending.size <= MAX_RESET_NOTICES) break;
      this.pending.delete(oldest);
    }
  }

  forget(sessionId: string): void {
    this.pending.delete(sessionId);
  }

  clear(): void {
    this.pending.clear();
  }

  /** The call's result, with the notice when the session was reset since it last heard. */
  deliver<R>(sessionId: string, run: Promise<R>): Promise<R> {
    if (!this.pending.has(sessionId)) return run;
    return run.then((result) => {
      this.pending.delete(sessionId);
      return this.withNotice(result);
    });
  }

  private withNotice<R>(result: R): R {
    const notice =
      `session_reset: this session was idle for more than ${this.settings.inactivityTimeoutSeconds} s ` +
      '(browser.inactivity_timeout), so its browser was closed; pages, cookies and refs are gone and it ' +
      'started again from about:blank.';
    if (typeof result !== 'object' || result === null || Array.isArray(result)) return result;
    const earlier = (result as { notices?: unknown }).notices;
    return { ...result, notices: [notice, ...(Array.isArray(earlier) ? (earlier as unknown[]) : [])] };
  }
}
