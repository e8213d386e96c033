/**
 * Parts of an outline an agent can ask for instead of the whole page: the subtree of one element
 * (`browser_snapshot {ref}`) and the lines that mention a text (`{find}`). Both are cut from the whole
 * outline by its indentation, so refs, control spans and the line format stay exactly as in the full
 * view, and an outline of any backend or frame nesting works the same way.
 */
import type { ControlSpan } from './snapshot-pager.js';

export interface OutlineText {
  text: string;
  controls: ControlSpan[];
}

interface Line {
  start: number;
  end: number;
  depth: number;
}

function linesOf(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start <= text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    lines.push({ start, end, depth: /^ */.exec(text.slice(start, end))?.[0].length ?? 0 });
    if (newline === -1) break;
    start = newline + 1;
  }
  return lines;
}

/** The chosen lines, in order, as a new outline whose control spans follow them. */
function keepLines(outline: OutlineText, lines: readonly Line[], chosen: readonly number[]): OutlineText {
  const parts: string[] = [];
  const controls: ControlSpan[] = [];
  let length = 0;
  let span = 0;
  for (const index of chosen) {
    const line = lines[index];
    if (!line) continue;
    if (parts.length > 0) length++;
    const shift = length - line.start;
    while (span < outline.controls.length && (outline.controls[span]?.[1] ?? 0) <= line.start) span++;
    for (let i = span; i < outline.controls.length; i++) {
      const control = outline.controls[i];
      if (!control || control[0] >= line.end) break;
      if (control[0] >= line.start) controls.push([control[0] + shift, control[1] + shift]);
    }
    parts.push(outline.text.slice(line.start, line.end));
    length += line.end - line.start;
  }
  return { text: parts.join('\n'), controls };
}

/** The line holding `ref` and, when the element is a container, everything indented under it. */
export function subtreeOf(outline: OutlineText, ref: string): OutlineText | null {
  const number = /(\d+)$/.exec(ref)?.[1];
  if (!number) return null;
  const at = new RegExp(`@e${number}(?!\\d)`).exec(outline.text)?.index;
  if (at === undefined) return null;
  const lines = linesOf(outline.text);
  const first = lines.findIndex((line) => line.end >= at);
  const depth = lines[first]?.depth ?? 0;
  const chosen = [first];
  for (let i = first + 1; i < lines.length && (lines[i]?.depth ?? 0) > depth; i++) chosen.push(i);
  return chosen.length === 1
    ? (pieceOf(outline, lines[first], at) ?? keepLines(outline, lines, chosen))
    : keepLines(outline, lines, chosen);
}

/**
 * A control that shares its line with other controls (a link in a paragraph, one of 600 on a line) is
 * answered alone, its piece whole: name, ref, states, value and target.
 */
function pieceOf(outline: OutlineText, line: Line | undefined, at: number): OutlineText | null {
  if (!line) return null;
  const inLine = outline.controls.filter(([start, end]) => start >= line.start && end <= line.end);
  const own = inLine.find(([start, end]) => start <= at && at < end);
  if (!own || inLine.length < 2) return null;
  const text = outline.text.slice(own[0], own[1]);
  return { text, controls: [[0, text.length]] };
}

/**
 * Every line whose text contains `query` (case-insensitive), each under the container lines it sits in
 * (a form, a dialog, an iframe, a clickable card), so the agent knows where a match lives.
 */
export function findIn(outline: OutlineText, query: string): { outline: OutlineText; matches: number } {
  const needle = query.toLowerCase();
  const lines = linesOf(outline.text);
  const chosen = new Set<number>();
  let matches = 0;
  lines.forEach((line, index) => {
    if (!outline.text.slice(line.start, line.end).toLowerCase().includes(needle)) return;
    matches++;
    chosen.add(index);
    let depth = line.depth;
    for (let i = index - 1; i >= 0 && depth > 0; i--) {
      const above = lines[i];
      if (!above || above.end === above.start || above.depth >= depth) continue;
      chosen.add(i);
      depth = above.depth;
    }
  });
  const order = [...chosen].sort((a, b) => a - b);
  return { outline: keepLines(outline, lines, order), matches };
}
