/** Small readers over tool results shared by the conformance cases. */
import assert from 'node:assert/strict';
import type { SnapshotResult } from '../../src/protocol/index.js';
import { errorCode, NeedsRefusedTool, type ConformanceSession } from './harness.js';

export async function snapshot(
  session: ConformanceSession,
  args: Record<string, unknown> = {},
): Promise<SnapshotResult> {
  return (await session.call('browser_snapshot', args)) as SnapshotResult;
}

/** The ref written right after `label` (e.g. `button "Send"`) in a snapshot text. */
export function refAfter(text: string, label: string): string {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const match = new RegExp(`${escaped} (@e\\d+)`).exec(text);
  assert.ok(match?.[1], `no ref for ${label} in:\n${text}`);
  return match[1];
}

export async function refOf(session: ConformanceSession, label: string): Promise<string> {
  return refAfter((await snapshot(session)).snapshot, label);
}

export async function fullText(session: ConformanceSession): Promise<string> {
  return (await snapshot(session, { full: true })).snapshot;
}

export async function rejectsWith(promise: Promise<unknown>, code: string): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof NeedsRefusedTool) throw error;
    assert.equal(errorCode(error), code, `expected ${code}, got ${String(error)}`);
    return error as Error;
  }
  assert.fail(`expected the call to fail with ${code}`);
}
