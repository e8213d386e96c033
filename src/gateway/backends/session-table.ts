/**
 * The sessions one browser backend serves, and their idle sweep: the part the engine backend (local
 * Chromium, CDP URLs) and the provider backend (cloud sessions) share. A session is admitted to one of the
 * browser's `max_sessions` slots before it is served; its running calls keep it from being idle; one left
 * unused past `browser.inactivity_timeout` is closed, and its next result says so, once, with a
 * `session_reset` notice. Time comes from an injected clock, so tests step through an idle-out.
 */
import { TabgateError } from '../../protocol/index.js';
import { every, type Timer, type TimerClock } from '../clock.js';
import type { CallSignal } from '../service.js';
import type { Admission, Release } from './admission.js';
import { ResetNotices } from './reset-notices.js';
import type { BrowserSettings } from '../config/browser-settings.js';

export interface SessionEntry<S> {
  readonly id: string;
  /** What the backend keeps for the session (its context, its provider session). */
  readonly data: S;
  /**
   * Settles once the session holds a slot of `max_sessions`; rejects when it was refused one
   * (`browser_busy`, a cancel) or closed while it waited, and the session is then gone from the table.
   */
  readonly admitted: Promise<void>;
  /** Gives back the session's slot: nothing before it is granted, nothing the second time. */
  readonly release: Release;
}

interface Entry<S> extends SessionEntry<S> {
  /** Calls of the session running now: a session with one is never idle. */
  busy: number;
  lastUsed: number;
}

export interface SessionTableOptions<S> {
  admission: Admission;
  clock: TimerClock;
  settings: BrowserSettings;
  /** Whether closing this session loses a browser the agent used, so its next call is told. */
  hadBrowser(data: S): boolean;
  /** Ends an idle session: forgets it (synchronously, before it first awaits) and closes its browser. */
  closeIdle(sessionId: string): Promise<void>;
}

/** Past this an idle session waits at most this long for its sweep; a quarter of the timeout below it. */
const MAX_SWEEP_INTERVAL_MS = 30_000;
const MIN_SWEEP_INTERVAL_MS = 200;

export class SessionTable<S> {
  private readonly entries = new Map<string, Entry<S>>();
  private readonly notices: ResetNotices;
  private readonly idleMs: number;
  private readonly sweepEvery: number;
  private sweeper: Timer | null = null;

  constructor(private readonly o: SessionTableOptions<S>) {
    this.notices = new ResetNotices(o.settings);
    this.idleMs = o.settings.inactivityTimeoutSeconds * 1000;
    this.sweepEvery = Math.min(MAX_SWEEP_INTERVAL_MS, Math.max(MIN_SWEEP_INTERVAL_MS, this.idleMs / 4));
    this.sweeper = every(o.clock, this.sweepEvery, () => void this.sweep());
    this.sweeper.keepAlive(false);
  }

  get(sessionId: string): SessionEntry<S> | undefined {
    return this.entries.get(sessionId);
  }

  /** Whether `entry` is still the session's: not closed, idled out or replaced since it was taken. */
  holds(entry: SessionEntry<S>): boolean {
    return this.entries.get(entry.id) === entry;
  }

  ids(): string[] {
    return [...this.entries.keys()];
  }

  /**
   * A new session, admitted once a slot of `max_sessions` is free (waiting at most the admission window):
   * a session that holds one is never refused for it again, until it is closed, idles out or loses its
   * browser. `make` builds the backend's data from the admission and the slot's release.
   */
  admit(
    sessionId: string,
    signal: CallSignal | undefined,
    make: (admitted: Promise<void>, release: Release) => S,
  ): SessionEntry<S> {
    const { admission } = this.o;
    let slot: Release = () => undefined;
    const release: Release = () => slot();
    const admitted = admission.sessions.acquire(admission.admitBy(), signal).then((granted) => {
      if (!this.holds(entry)) {
        granted();
        throw new TabgateError(
          'backend_unavailable',
          'The session was closed while it waited for the browser.',
        );
      }
      slot = granted;
    });
    admitted.catch(() => {
      if (this.holds(entry)) this.entries.delete(sessionId);
    });
    const entry: Entry<S> = {
      id: sessionId,
      data: make(admitted, release),
      admitted,
      release,
      busy: 0,
      lastUsed: this.o.clock.now(),
    };
    this.entries.set(sessionId, entry);
    return entry;
  }

  /** Runs one call of the session: while it runs the session is busy, and its idle time starts after it. */
  async use<T>(entry: SessionEntry<S>, work: () => Promise<T>): Promise<T> {
    const held = entry as Entry<S>;
    held.busy++;
    held.lastUsed = this.o.clock.now();
    try {
      return await work();
    } finally {
      held.busy--;
      held.lastUsed = this.o.clock.now();
    }
  }

  /** Takes the session out of the table; its slot is the caller's to give back once its browser is gone. */
  take(sessionId: string): SessionEntry<S> | undefined {
    const entry = this.entries.get(sessionId);
    if (entry) this.entries.delete(sessionId);
    return entry;
  }

  /** The call's result, with the `session_reset` notice when the session idled out since its last one. */
  deliver<R>(sessionId: string, run: Promise<R>): Promise<R> {
    return this.notices.deliver(sessionId, run);
  }

  /** The session was closed on purpose: there is no reset to tell it about. */
  closed(sessionId: string): void {
    this.notices.forget(sessionId);
  }

  /** Stops the sweep and drops the pending notices; the sessions still held are the caller's to close. */
  stop(): void {
    this.sweeper?.cancel();
    this.sweeper = null;
    this.notices.clear();
  }

  private async sweep(): Promise<void> {
    for (const [sessionId, entry] of this.entries) {
      if (entry.busy > 0 || this.o.clock.now() - entry.lastUsed <= this.idleMs) continue;
      const lost = this.o.hadBrowser(entry.data);
      const closing = this.o.closeIdle(sessionId);
      // Marked once the session is forgotten but before its close completes, so a call that arrives
      // meanwhile is the one told.
      if (lost) this.notices.mark(sessionId);
      await closing;
    }
  }
}
