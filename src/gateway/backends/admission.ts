/**
 * Admission control for one browser: a bound on the contexts it holds open (`browser.max_sessions`) and
 * on the calls it runs at once (`browser.max_concurrent_actions`), each with a short FIFO queue. A call
 * that finds the queue full, or waits past its admission window, is refused at once with `browser_busy`
 * and a time to retry, so past the machine's capacity callers get an answer instead of all timing out
 * together (issue 13: 100 sessions at once on two cores served none).
 */
import { TabgateError } from '../../protocol/index.js';
import { systemTimers, type TimerClock } from '../clock.js';
import type { CallSignal } from '../service.js';

/** Gives the slot back; calling it again does nothing. */
export type Release = () => void;

interface Waiter {
  grant(release: Release): void;
  refuse(error: TabgateError): void;
}

export interface SlotsOptions {
  /** What is bounded, for the refusal's message: `open browser sessions`, `browser actions`. */
  what: string;
  limit: number;
  /** Callers that may wait for a slot; one more is refused at once. */
  queueLength: number;
  /** What the refusal tells the caller to wait before retrying, in seconds. */
  retryAfterSeconds: number;
}

/** A counting semaphore with a bounded FIFO queue whose waits end by a given time. */
export class Slots {
  private held = 0;
  private readonly waiting: Waiter[] = [];

  constructor(
    private readonly options: SlotsOptions,
    private readonly clock: TimerClock = systemTimers,
  ) {}

  get inUse(): number {
    return this.held;
  }

  get queued(): number {
    return this.waiting.length;
  }

  /** A slot, at once or after waiting at most until `admitBy` (on the clock); else `browser_busy`. */
  acquire(admitBy: number, signal?: CallSignal): Promise<Release> {
    if (this.held < this.options.limit && this.waiting.length === 0) return Promise.resolve(this.take());
    if (signal?.aborted) return Promise.reject(new TabgateError('call_cancelled', 'The call was cancelled.'));
    const waitMs = admitBy - this.clock.now();
    if (this.waiting.length >= this.options.queueLength || waitMs <= 0) return Promise.reject(this.busy());
    return new Promise<Release>((resolve, reject) => {
      const leave = () => {
        timer.cancel();
        signal?.removeEventListener('abort', onAbort);
        const index = this.waiting.indexOf(waiter);
        if (index >= 0) this.waiting.splice(index, 1);
      };
      const waiter: Waiter = {
        grant: (release) => {
          leave();
          resolve(release);
        },
        refuse: (error) => {
          leave();
          reject(error);
        },
      };
      const onAbort = () =>
        waiter.refuse(new TabgateError('call_cancelled', 'The call was cancelled while it waited.'));
      const timer = this.clock.setTimer(() => waiter.refuse(this.busy()), waitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(waiter);
    });
  }

  private take(): Release {
    this.held++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      // Handed straight to the oldest waiter, so a newcomer cannot overtake the queue.
      const next = this.waiting[0];
      if (next && this.held < this.options.limit) next.grant(this.take());
    };
  }

  private busy(): TabgateError {
    const { what, limit, retryAfterSeconds } = this.options;
    return new TabgateError(
      'browser_busy',
      `The browser is at its limit of ${limit} ${what}; retry in ${retryAfterSeconds} s.`,
      { retry_after_seconds: retryAfterSeconds },
    );
  }
}

export interface AdmissionLimits {
  /** `browser.max_sessions`: browser contexts (or provider sessions) open at once. */
  maxSessions: number;
  /** `browser.max_concurrent_actions`: tool calls (navigations included) running at once per browser. */
  maxConcurrentActions: number;
  /** `browser.command_timeout`, seconds: admission waits end well before it. */
  commandTimeoutSeconds: number;
}

/** The longest a new session waits for admission: a third of its deadline, at most 10 s. */
export function admissionWindowMs(commandTimeoutSeconds: number): number {
  return Math.min(10_000, (commandTimeoutSeconds * 1000) / 3);
}

/**
 * The longest a call of an admitted session waits for an action slot: two thirds of its deadline, so the
 * last third is left to the action. An admitted session is one the browser agreed to hold; refusing its
 * call after the new-session window (when the calls ahead of it are slow, as first calls that open a
 * context are on a loaded machine) would serve fewer sessions than `max_sessions`.
 */
export function actionWindowMs(commandTimeoutSeconds: number): number {
  return (commandTimeoutSeconds * 1000 * 2) / 3;
}

/** The two bounds of one browser. */
export class Admission {
  readonly sessions: Slots;
  readonly actions: Slots;
  private readonly windowMs: number;
  private readonly actionWindow: number;

  constructor(
    limits: AdmissionLimits,
    private readonly clock: TimerClock = systemTimers,
  ) {
    this.windowMs = admissionWindowMs(limits.commandTimeoutSeconds);
    this.actionWindow = actionWindowMs(limits.commandTimeoutSeconds);
    this.sessions = new Slots(
      {
        what: 'open browser sessions',
        limit: limits.maxSessions,
        queueLength: Math.ceil(limits.maxSessions / 4),
        // A session slot frees when a session is closed or idles out: not within a second.
        retryAfterSeconds: 10,
      },
      clock,
    );
    this.actions = new Slots(
      {
        what: 'browser actions at once',
        limit: limits.maxConcurrentActions,
        // Each admitted session runs one call at a time, so this never refuses for length: only a call
        // that waits out its window is refused.
        queueLength: limits.maxSessions,
        retryAfterSeconds: 2,
      },
      clock,
    );
  }

  /** The time by which a new session whose call starts now must have been admitted. */
  admitBy(): number {
    return this.clock.now() + this.windowMs;
  }

  /** The time by which a call starting now must have its action slot. */
  actionBy(): number {
    return this.clock.now() + this.actionWindow;
  }
}
