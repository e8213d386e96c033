/**
 * The latest screenshot of each session someone is watching on the dashboard: taken after an action of
 * the session ends well, at most once a second (a burst of actions gets one shot after the last), only
 * while a dashboard asked for it within the last 30 s, and only through the browser serving the session
 * (`captureScreen`, which refuses a stopped session, a bound session without its controller, and a
 * session whose browser is not open). Kept in memory, one PNG per session.
 */
import type { Clock } from '../clock.js';
import type { ActionEntry, SessionActivity } from './session-activity.js';

const MIN_GAP_MS = 1000;
const WATCH_MS = 30_000;

export interface Screenshot {
  png: Buffer;
  /** Epoch ms. */
  at: number;
  seq: number;
}

export class LatestScreenshots {
  private readonly shots = new Map<string, Screenshot>();
  private readonly watchedUntil = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** When each session's last shot started: the gap counts from there, so a slow shot adds no delay. */
  private readonly startedAt = new Map<string, number>();
  private seq = 0;
  private readonly unsubscribe: () => void;

  constructor(
    private readonly o: {
      activity: SessionActivity;
      clock: Clock;
      capture(sessionId: string): Promise<{ data: string } | null>;
      /** A new screenshot of the session is ready. */
      onShot(sessionId: string, seq: number): void;
    },
  ) {
    this.unsubscribe = o.activity.subscribe((entry) => this.ended(entry));
  }

  /** A dashboard shows this session: keep its screenshot fresh for a while, and take one now if none. */
  watch(sessionId: string): void {
    const first = !this.watchedUntil.has(sessionId);
    this.watchedUntil.set(sessionId, this.o.clock.now() + WATCH_MS);
    if (first && !this.shots.has(sessionId) && this.o.activity.last(sessionId)?.outcome === 'ok')
      this.schedule(sessionId);
  }

  latest(sessionId: string): Screenshot | undefined {
    return this.shots.get(sessionId);
  }

  forget(sessionId: string): void {
    this.shots.delete(sessionId);
    this.watchedUntil.delete(sessionId);
    this.startedAt.delete(sessionId);
    clearTimeout(this.timers.get(sessionId));
    this.timers.delete(sessionId);
  }

  close(): void {
    this.unsubscribe();
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  private ended(entry: ActionEntry): void {
    if (entry.outcome !== 'ok') return;
    const until = this.watchedUntil.get(entry.session_id);
    if (until === undefined) return;
    if (until < this.o.clock.now()) {
      this.watchedUntil.delete(entry.session_id);
      return;
    }
    this.schedule(entry.session_id);
  }

  private schedule(sessionId: string): void {
    if (this.timers.has(sessionId)) return;
    const last = this.startedAt.get(sessionId) ?? 0;
    const wait = Math.max(0, last + MIN_GAP_MS - this.o.clock.now());
    const timer = setTimeout(() => void this.take(sessionId), wait);
    timer.unref();
    this.timers.set(sessionId, timer);
  }

  private async take(sessionId: string): Promise<void> {
    // An action ending while this shot is taken schedules the next one, a second after this one began.
    this.timers.delete(sessionId);
    this.startedAt.set(sessionId, this.o.clock.now());
    try {
      const shot = await this.o.capture(sessionId);
      if (!shot) return;
      const seq = ++this.seq;
      this.shots.set(sessionId, { png: Buffer.from(shot.data, 'base64'), at: this.o.clock.now(), seq });
      this.o.onShot(sessionId, seq);
    } catch {
      // The page is gone or busy: the next action tries again.
    }
  }
}
