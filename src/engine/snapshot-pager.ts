/**
 * The hard budget of one snapshot response: deterministic cuts at line boundaries, a note saying how
 * much was left out, and the offset to pass to read on. The same page state always pages the same way.
 */
import type { SnapshotResult } from '../protocol/index.js';

const FOOTER_RESERVE = 160;

export type SnapshotPage = Pick<
  SnapshotResult,
  'snapshot' | 'truncated' | 'total_chars' | 'offset' | 'next_offset'
>;

export function pageSnapshot(text: string, offset: number, maxChars: number): SnapshotPage {
  const total = text.length;
  const start = Math.min(offset, total);
  const rest = text.slice(start);
  if (rest.length <= maxChars) {
    return { snapshot: rest, truncated: start > 0, total_chars: total, offset: start, next_offset: null };
  }
  const budget = Math.max(1, maxChars - FOOTER_RESERVE);
  const window = rest.slice(0, budget);
  const cut = window.lastIndexOf('\n');
  // A single line longer than the budget is cut mid-line rather than never shown.
  const body = cut > 0 ? window.slice(0, cut) : window;
  const next = start + body.length + (cut > 0 ? 1 : 0);
  const remaining = text.slice(next);
  const moreLines = remaining.split('\n').length;
  const footer =
    `\n… ${moreLines} more line${moreLines === 1 ? '' : 's'} (${remaining.length} chars) not shown;` +
    ` call browser_snapshot with offset=${next} to read on.`;
  return { snapshot: body + footer, truncated: true, total_chars: total, offset: start, next_offset: next };
}
