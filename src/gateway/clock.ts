/** Wall-clock epoch milliseconds, injectable so tests can step time (ticket expiry) without sleeping. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A pending wake-up; cancelling it twice, or after it fired, does nothing. */
export interface Timer {
  cancel(): void;
  /** Whether it keeps the process alive (Node's ref/unref); a manual clock ignores it. */
  keepAlive(alive: boolean): void;
}

/**
 * A clock that can also wake its caller: what deadlines, admission waits and idle sweeps run on. `now()`
 * and the timers share one time base, so a test that steps a manual clock fires exactly the timers that
 * fell due, and never sleeps to see a timeout.
 */
export interface TimerClock extends Clock {
  /** Calls `fire` once, `ms` from now. */
  setTimer(fire: () => void, ms: number): Timer;
}

/**
 * The system's timers. Its `now()` is epoch milliseconds that never step with the wall clock (the
 * process's start time plus monotonic time since), so an NTP correction moves no deadline or idle timeout,
 * while a provider's `expires_at` still compares against it.
 */
export const systemTimers: TimerClock = {
  now: () => performance.timeOrigin + performance.now(),
  setTimer(fire, ms) {
    const timeout = setTimeout(fire, ms);
    return {
      cancel: () => clearTimeout(timeout),
      keepAlive: (alive) => void (alive ? timeout.ref() : timeout.unref()),
    };
  },
};

/**
 * Calls `fire` every `ms`, the first time `ms` from now, until the returned timer is cancelled; its
 * `keepAlive` holds for every wake-up to come.
 */
export function every(clock: TimerClock, ms: number, fire: () => void): Timer {
  let alive = true;
  let current = clock.setTimer(run, ms);
  function run() {
    current = clock.setTimer(run, ms);
    current.keepAlive(alive);
    fire();
  }
  return {
    cancel: () => current.cancel(),
    keepAlive: (keep) => {
      alive = keep;
      current.keepAlive(keep);
    },
  };
}

/** The clock itself when it can wake its caller (a test's manual clock); else the system's timers. */
export function timersOf(clock: Clock): TimerClock {
  return 'setTimer' in clock && typeof clock.setTimer === 'function' ? (clock as TimerClock) : systemTimers;
}
