/** Runs a case body in a fresh session and always closes it. */
import type { ConformanceSession } from './harness.js';
import type { HarnessRef } from './suite.js';

export function withSession(
  get: HarnessRef,
  body: (session: ConformanceSession) => Promise<void>,
): () => Promise<void> {
  return async () => {
    const session = await get().newSession();
    try {
      await body(session);
    } finally {
      await session.close();
    }
  };
}
