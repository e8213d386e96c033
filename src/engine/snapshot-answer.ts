/**
 * One snapshot answer from a tab's whole outline: the part asked for (everything, one element's subtree
 * with `ref`, the lines mentioning a text with `find`), paged to the budget, the page's text inside a
 * fresh boundary, and, on the first answer of a long page, the outline of what the later answers hold.
 */
import type { SnapshotResult } from '../protocol/index.js';
import { newBoundary } from './page-text-boundary.js';
import { outlineBudget, outlineOf } from './snapshot-outline.js';
import { pageSnapshot, type SnapshotPage } from './snapshot-pager.js';
import type { TabSnapshot } from './snapshot.js';
import { findIn, subtreeOf, type OutlineText } from './snapshot-views.js';

export interface SnapshotQuery {
  offset: number;
  ref?: string;
  find?: string;
}

/** A page whose whole outline is at most this long is its own outline on `browser_navigate`. */
export const SMALL_PAGE_CHARS = 2_000;

/** Room for the outline's numbers to grow when its part is measured again. */
const DIGITS_SLACK = 16;

type Answer = SnapshotPage & Pick<SnapshotResult, 'ref_count' | 'hint'>;

const countRefs = (text: string) => text.match(/@e\d+/g)?.length ?? 0;

export function answerSnapshot(snap: TabSnapshot, query: SnapshotQuery, maxChars: number): Answer {
  let view: OutlineText = snap;
  let hint: string | undefined;
  if (query.ref) {
    const subtree = subtreeOf(view, query.ref);
    if (!subtree) {
      hint = `${query.ref} is not in the outline now (hidden, or inside a part that is not shown); take a browser_snapshot without ref.`;
    }
    view = subtree ?? { text: '', controls: [] };
  }
  if (query.find !== undefined && view.text !== '') {
    const found = findIn(view, query.find);
    view = found.outline;
    if (found.matches === 0) {
      hint = `No line contains ${JSON.stringify(query.find)}; try a shorter or different word, or browser_snapshot without find.`;
    }
  }
  const whole = !query.ref && query.find === undefined;
  const refCount = whole ? snap.refCount : countRefs(view.text);
  if (view.text === '') {
    return {
      snapshot: '',
      truncated: false,
      total_chars: 0,
      offset: 0,
      next_offset: null,
      ref_count: 0,
      hint,
    };
  }
  const boundary = newBoundary(snap.origin);
  let page = pageSnapshot(view.text, query.offset, maxChars, view.controls, { boundary });
  if (whole && query.offset === 0 && page.next_offset !== null) {
    // The first answer of a long page: measure where its part ends with room kept for the outline,
    // write the outline of everything after that point, then cut again with room for just that outline
    // (a little more, for counts that gain a digit) and write it once more for the final cut.
    const shownWith = (leadReserve: number) =>
      pageSnapshot(view.text, 0, maxChars, view.controls, { boundary, leadReserve }).next_offset ?? 0;
    const draft = outlineOf(view.text, shownWith(outlineBudget(maxChars) + 2), maxChars);
    const leadReserve = draft.length + 2 + DIGITS_SLACK;
    const lead = outlineOf(view.text, shownWith(leadReserve), maxChars);
    page = pageSnapshot(view.text, 0, maxChars, view.controls, { boundary, lead, leadReserve });
  }
  return { ...page, ref_count: refCount, ...(hint ? { hint } : {}) };
}

/** `browser_navigate`'s default: a small page whole, a longer one as its outline alone. */
export function outlineAnswer(snap: TabSnapshot, maxChars: number): Answer {
  if (snap.text.length <= Math.min(SMALL_PAGE_CHARS, maxChars))
    return answerSnapshot(snap, { offset: 0 }, maxChars);
  const boundary = newBoundary(snap.origin);
  const lead = outlineOf(snap.text, 0, maxChars);
  return {
    snapshot: `${boundary.open}\n${lead}\n${boundary.close}`,
    truncated: true,
    total_chars: snap.text.length,
    offset: 0,
    next_offset: 0,
    ref_count: snap.refCount,
  };
}
