/**
 * The hard budget of one snapshot response: deterministic cuts, a note saying how much was left out,
 * and the offset to pass to read on. The same page state always pages the same way.
 *
 * A page ends at a line break, unless the line after it is longer than a whole page: then the page is
 * filled and cut inside that line, between words and never inside a control (its ref, name, value and
 * target stay together on one page). Only a single control longer than a page is itself cut, after its
 * ref, so the ref is still whole.
 */
import type { SnapshotResult } from '../protocol/index.js';
import type { Boundary } from './page-text-boundary.js';

const FOOTER_RESERVE = 160;

/** Where one control's piece starts and ends (exclusive) in the outline; spans are in order. */
export type ControlSpan = readonly [start: number, end: number];

export type SnapshotPage = Pick<
  SnapshotResult,
  'snapshot' | 'truncated' | 'total_chars' | 'offset' | 'next_offset'
>;

/** What an answer adds around the page's part: the boundary of page text, and a lead inside it. */
export interface PageFrame {
  boundary?: Boundary;
  /** Written before the part (the outline of a long page); its length comes out of the budget. */
  lead?: string;
  /** Characters kept for the lead even when it is shorter, so a page cuts where a first pass measured. */
  leadReserve?: number;
  /** The tool to name in the closing note. */
  tool?: string;
}

export function pageSnapshot(
  text: string,
  offset: number,
  maxChars: number,
  controls: readonly ControlSpan[] = [],
  frame: PageFrame = {},
): SnapshotPage {
  const total = text.length;
  const start = Math.min(offset, total);
  const { boundary, lead } = frame;
  const wrap = (body: string) => {
    const inner = lead ? (body ? lead + '\n\n' + body : lead) : body;
    return boundary && inner ? `${boundary.open}\n${inner}\n${boundary.close}` : inner;
  };
  const framing =
    (boundary ? boundary.open.length + boundary.close.length + 2 : 0) +
    Math.max(lead ? lead.length + 2 : 0, frame.leadReserve ?? 0);
  maxChars = Math.max(1, maxChars - framing);
  if (total - start <= maxChars) {
    return {
      snapshot: wrap(text.slice(start)),
      truncated: start > 0,
      total_chars: total,
      offset: start,
      next_offset: null,
    };
  }
  const limit = start + Math.max(1, maxChars - FOOTER_RESERVE);
  const { end, next } = cutPoint(text, start, limit, controls);
  const remaining = text.slice(next);
  const moreLines = remaining.split('\n').length;
  const footer =
    `\n… ${moreLines} more line${moreLines === 1 ? '' : 's'} (${remaining.length} chars) not shown;` +
    ` call ${frame.tool ?? 'browser_snapshot'} with offset=${next} to read on.`;
  return {
    snapshot: wrap(text.slice(start, end)) + footer,
    truncated: true,
    total_chars: total,
    offset: start,
    next_offset: next,
  };
}

/** The page is `text[start, end)`; the next one starts at `next` (past the line break when cut at one). */
function cutPoint(text: string, start: number, limit: number, controls: readonly ControlSpan[]) {
  const lineBreak = text.lastIndexOf('\n', limit);
  if (lineBreak > start) {
    const after = text.indexOf('\n', lineBreak + 1);
    const nextLine = (after === -1 ? text.length : after) - (lineBreak + 1);
    if (nextLine <= limit - start) return { end: lineBreak, next: lineBreak + 1 };
  }
  const inLine = Math.max(start, lineBreak + 1);
  const between = wordBreakOutsideControls(text, inLine, limit, controls);
  if (between > inLine) return { end: between, next: between };
  if (lineBreak > start) return { end: lineBreak, next: lineBreak + 1 };
  const cut = insideOversizedControl(text, start, limit, controls);
  return { end: cut, next: cut };
}

/** The last point in (from, limit] right after a space, not inside any control; `from` if there is none. */
function wordBreakOutsideControls(
  text: string,
  from: number,
  limit: number,
  controls: readonly ControlSpan[],
): number {
  let at = limit;
  while (at > from) {
    const space = text.lastIndexOf(' ', at - 1);
    if (space < from) return from;
    at = space + 1;
    const inside = containing(controls, at);
    if (!inside) return at;
    at = inside[0];
  }
  return from;
}

/** A single control longer than a page: cut at its last space that comes after the ref. */
function insideOversizedControl(
  text: string,
  start: number,
  limit: number,
  controls: readonly ControlSpan[],
): number {
  const inside = containing(controls, limit);
  if (inside) {
    const ref = /@e\d+/.exec(text.slice(inside[0], limit));
    const afterRef = ref ? inside[0] + ref.index + ref[0].length : limit;
    const space = text.lastIndexOf(' ', limit - 1);
    if (space >= afterRef && space > start) return space + 1;
    if (afterRef > start && afterRef <= limit) return afterRef;
  }
  // Never between the two halves of a surrogate pair.
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff && limit - 1 > start ? limit - 1 : limit;
}

/** The control that `at` falls strictly inside, by binary search over the ordered spans. */
function containing(controls: readonly ControlSpan[], at: number): ControlSpan | undefined {
  let low = 0;
  let high = controls.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const span = controls[middle];
    if (!span) return undefined;
    if (at <= span[0]) high = middle - 1;
    else if (at >= span[1]) low = middle + 1;
    else return span;
  }
  return undefined;
}
