/**
 * The requests of a tab's page session under way, and how many began or ended: what tells a page that
 * took a form's submission over (an app posting it itself, a check before it submits) from one that is
 * done. Long-lived requests (a poll, an event stream) that began before the input are not waited for.
 */
import type { CdpSession } from './transport.js';

/** More in flight than this is a page that never goes quiet; the oldest are forgotten. */
const TRACKED = 500;

export class PageActivity {
  /** Request id → when it began. */
  private readonly inFlight = new Map<string, number>();
  /** Requests begun or ended so far: a spell in which it does not move is a quiet one. */
  changes = 0;

  /** Starts listening; returns the unsubscribes. */
  listen(page: CdpSession, changed: () => void): (() => void)[] {
    const ended = ({ requestId }: { requestId: string }) => {
      if (this.inFlight.delete(requestId)) {
        this.changes++;
        changed();
      }
    };
    return [
      page.on<{ requestId: string }>('Network.requestWillBeSent', ({ requestId }) => {
        // A redirect comes under the same id: still the same request.
        this.inFlight.set(requestId, this.inFlight.get(requestId) ?? Date.now());
        if (this.inFlight.size > TRACKED) this.inFlight.delete(this.inFlight.keys().next().value ?? '');
        this.changes++;
        changed();
      }),
      page.on<{ requestId: string }>('Network.loadingFinished', ended),
      page.on<{ requestId: string }>('Network.loadingFailed', ended),
    ];
  }

  /** Whether every request that began at or after `since` is done. */
  doneSince(since: number): boolean {
    for (const began of this.inFlight.values()) if (began >= since) return false;
    return true;
  }
}
