/**
 * A bound on a test's wait for an event stream (the dashboard's): the stream is read until the test has
 * what it waits for, and a row that never comes fails the test after READ_WITHIN_MS, naming what the
 * stream did bring, instead of hanging it to the runner's timeout with nothing said. A failure's
 * deadline, not a timing: nothing is asserted about how soon events come.
 */
import type { LiveEvent } from '../../src/dashboard/live-events.js';

export const READ_WITHIN_MS = 15_000;

/** `reading`, or a failure naming `events` (what came so far) once READ_WITHIN_MS has passed; `stop` then. */
export function readWithin<T>(
  reading: Promise<T>,
  events: readonly LiveEvent[],
  stop: () => void,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      stop();
      const heard = events.map((e) => `${e.event}${e.id === null ? '' : ` ${e.id}`}`).join(', ');
      reject(
        new Error(
          `the stream did not bring what the test waits for in ${READ_WITHIN_MS} ms; it brought: ${heard}`,
        ),
      );
    }, READ_WITHIN_MS);
  });
  return Promise.race([reading, late]).finally(() => clearTimeout(timer));
}
