/** Runs a case body in a fresh session and always closes it. */
import type { TestContext } from 'node:test';
import { refusalOf, type ConformanceSession } from './harness.js';
import { rejectsWith } from './helpers.js';
import type { HarnessRef } from './harness.js';

export function withSession(
  get: HarnessRef,
  body: (session: ConformanceSession, t: TestContext) => Promise<void>,
): (t: TestContext) => Promise<void> {
  return async (t) => {
    const session = await get().newSession();
    try {
      await body(session, t);
    } finally {
      await session.close();
    }
  };
}

/**
 * For a tool the harness refuses by design: asserts that the call fails with the declared code (so the
 * refusal itself is tested) and returns true; the case then stops. False when the tool is supported.
 */
export async function assertedRefusal(
  get: HarnessRef,
  t: TestContext,
  session: ConformanceSession,
  tool: string,
  args: Record<string, unknown> = {},
): Promise<boolean> {
  const refusal = refusalOf(get(), tool);
  if (!refusal) return false;
  await rejectsWith(session.call(tool, args), refusal.code);
  t.diagnostic(`${tool} is refused with ${refusal.code}: ${refusal.reason}`);
  return true;
}

/** The code this harness reports `code` under (see `BackendLimits.renamedCodes`), noting why. */
export function expectedCode(get: HarnessRef, t: TestContext, code: string): string {
  const renamed = get().limits?.renamedCodes?.[code];
  if (!renamed) return code;
  t.diagnostic(`${code} arrives as ${renamed.code}: ${renamed.reason}`);
  return renamed.code;
}
