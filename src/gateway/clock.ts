/** Wall-clock epoch milliseconds, injectable so tests can step time (ticket expiry) without sleeping. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
