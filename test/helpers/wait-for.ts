/**
 * The one way a test waits for something to happen: until `check` returns a value that is not false,
 * null or undefined (which it resolves with), or until `within` ms have passed, when it fails naming
 * `what` and how long it waited. A test never sleeps a fixed time to see a thing happen: on a loaded
 * machine a fixed sleep is either too short (flaky) or too long (slow); this returns as soon as the thing
 * is there, and the bound is only a failure's deadline, never a timing assertion.
 */
import { setTimeout as delay } from 'node:timers/promises';

export interface WaitOptions {
  /** What is awaited, for the failure message: "the idle session to be closed". */
  what: string;
  /** The bound, in ms (default 10 s). */
  within?: number;
  /** How often `check` runs again, in ms (default 10). */
  every?: number;
}

export async function waitFor<T>(
  check: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  { what, within = 10_000, every = 10 }: WaitOptions,
): Promise<T> {
  const deadline = performance.now() + within;
  for (;;) {
    const value = await check();
    if (value !== false && value !== null && value !== undefined) return value;
    if (performance.now() >= deadline) throw new Error(`waited ${within} ms for ${what}`);
    await delay(every);
  }
}
