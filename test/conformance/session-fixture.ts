/** Runs a case body in a fresh session and always closes it. */
import type { TestContext } from 'node:test';
import { NeedsRefusedTool, refusalOf, type ConformanceSession } from './harness.js';
import { rejectsWith } from './helpers.js';
import type { HarnessRef } from './harness.js';

/** The session a case sees: a call of a refused tool is checked to be refused, and the case skipped. */
interface GuardedSession extends ConformanceSession {
  unguarded: ConformanceSession;
}

function guarded(get: HarnessRef, session: ConformanceSession): GuardedSession {
  return {
    unguarded: session,
    close: () => session.close(),
    async call(tool, args) {
      const refusal = refusalOf(get(), tool);
      if (!refusal) return session.call(tool, args);
      await rejectsWith(session.call(tool, args), refusal.code);
      throw new NeedsRefusedTool(`needs ${tool}, refused with ${refusal.code}: ${refusal.reason}`);
    },
  };
}

/** The titles of the cases each harness declared skipped that were met, to find titles that name none. */
const metSkips = new WeakMap<object, Set<string>>();

export function withSession(
  get: HarnessRef,
  body: (session: ConformanceSession, t: TestContext) => Promise<void>,
): (t: TestContext) => Promise<void> {
  return async (t) => {
    const harness = get();
    const skipped = harness.limits?.skippedCases?.[t.name];
    if (skipped !== undefined) {
      const met = metSkips.get(harness) ?? new Set<string>();
      metSkips.set(harness, met.add(t.name));
      t.skip(skipped);
      return;
    }
    const session = guarded(get, await harness.newSession());
    try {
      await body(session, t);
    } catch (error) {
      if (!(error instanceof NeedsRefusedTool)) throw error;
      t.skip(error.message);
    } finally {
      await session.close();
    }
  };
}

/** Declared skipped cases that no case of the suite is called by: each is a stale declaration. */
export function unmetSkips(
  harness: object & { limits?: { skippedCases?: Readonly<Record<string, string>> } },
): string[] {
  const met = metSkips.get(harness) ?? new Set<string>();
  return Object.keys(harness.limits?.skippedCases ?? {}).filter((title) => !met.has(title));
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
  const unguarded = 'unguarded' in session ? (session as GuardedSession).unguarded : session;
  await rejectsWith(unguarded.call(tool, args), refusal.code);
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
