/**
 * The map of a page too long for one answer: its sections (landmarks, containers, headings) after the
 * part shown, each with how many controls it holds and where to read it, plus the search fields the
 * later pages hold. Sections partition the outline, so every control is either shown or counted under
 * an entry the agent can open with `offset`, `find` or (for a container control) `ref`.
 */

/** Share of the budget the map may take, and the size of one entry, to size the list. */
const OUTLINE_SHARE = 0.25;
const ENTRY_CHARS = 90;
const MIN_ENTRIES = 4;
const MAX_ENTRIES = 40;
const LABEL_MAX = 70;
const SEARCH_FIELDS = 3;
const REF = /@e\d+/g;

interface Section {
  label: string;
  start: number;
  end: number;
  controls: number;
}

/** Characters the map may use out of a page budget of `maxChars`. */
export function outlineBudget(maxChars: number): number {
  return Math.floor(maxChars * OUTLINE_SHARE);
}

const countRefs = (text: string) => text.match(REF)?.length ?? 0;
const shorten = (label: string) =>
  label.length > LABEL_MAX ? label.slice(0, LABEL_MAX - 1).trimEnd() + '…' : label;

/** Headings, and containers near the top of the tree, start a section. */
function sectionsOf(text: string): Section[] {
  const sections: Section[] = [{ label: 'top of the page', start: 0, end: text.length, controls: 0 }];
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    const line = text.slice(start, end);
    const depth = /^ */.exec(line)?.[0].length ?? 0;
    const body = line.slice(depth);
    const nextDepth = newline === -1 ? 0 : (/^ */.exec(text.slice(end + 1, end + 200))?.[0].length ?? 0);
    const heading = /^#{1,6} /.test(body);
    const container = depth <= 2 && body.endsWith(':') && nextDepth > depth;
    if ((heading || container) && start > 0) {
      const previous = sections[sections.length - 1];
      if (previous) previous.end = start;
      sections.push({
        label: shorten(container ? body.slice(0, -1) : body),
        start,
        end: text.length,
        controls: 0,
      });
    }
    start = end + 1;
  }
  for (const section of sections) section.controls = countRefs(text.slice(section.start, section.end));
  return sections;
}

/** Neighbouring sections joined until at most `max` remain, each about the same size. */
function merge(sections: Section[], max: number): Section[] {
  if (sections.length <= max) return sections;
  const total = sections.reduce((sum, section) => sum + section.end - section.start, 0);
  // Each section goes to the slice of the text its start falls in: never more than `max` groups.
  const groups: Section[][] = [];
  let before = 0;
  let slice = -1;
  for (const section of sections) {
    const at = Math.min(max - 1, Math.floor((before * max) / Math.max(1, total)));
    if (at !== slice) groups.push([]);
    groups[groups.length - 1]?.push(section);
    slice = at;
    before += section.end - section.start;
  }
  return groups.map((group) => {
    const first = group[0] as Section;
    const last = group[group.length - 1] as Section;
    return {
      label: group.length === 1 ? first.label : `${first.label} … ${last.label} (${group.length} parts)`,
      start: first.start,
      end: last.end,
      controls: group.reduce((sum, section) => sum + section.controls, 0),
    };
  });
}

/**
 * The map of what comes after `shownUpTo` in `text` (the part of the outline the first answer shows),
 * written to fit `outlineBudget(maxChars)`.
 */
export function outlineOf(text: string, shownUpTo: number, maxChars: number): string {
  const budget = outlineBudget(maxChars);
  // A section with no control and little text (a landmark's line before its first heading) is noise.
  const later = sectionsOf(text)
    .filter((section) => section.end > shownUpTo)
    .map((section) =>
      section.start >= shownUpTo
        ? section
        : { ...section, start: shownUpTo, controls: countRefs(text.slice(shownUpTo, section.end)) },
    )
    .filter((section) => section.controls > 0 || section.end - section.start > 200);
  const controls = countRefs(text);
  const pages = Math.ceil(text.length / maxChars);
  const shown =
    shownUpTo > 0 ? ` ${countRefs(text.slice(0, shownUpTo))} are shown below; the rest` : ' the page';
  const head =
    `Outline: the page is ${text.length} chars (about ${pages} answers) with ${controls} controls;` +
    `${shown} by section (read one with browser_snapshot offset=N, or find="text"; ref=@eN opens a` +
    ' container control):';
  const search = searchFields(text, shownUpTo);
  const tail = search.length > 0 ? ['Search fields further down:', ...search.map((line) => '  ' + line)] : [];
  // Join neighbouring sections until the whole list fits: an entry is never dropped, or the controls
  // it counts would be reachable from nowhere.
  let maxEntries = Math.max(MIN_ENTRIES, Math.min(MAX_ENTRIES, Math.floor(budget / ENTRY_CHARS) - 2));
  for (;;) {
    const entries = merge(later, maxEntries);
    const lines = entries.map(
      (entry) =>
        `- ${entry.label} — ${entry.controls} control${entry.controls === 1 ? '' : 's'}, offset=${entry.start}`,
    );
    const outline = [head, ...lines, ...tail].join('\n');
    if ((outline.length <= budget && entries.length <= maxEntries) || maxEntries <= 1) return outline;
    maxEntries = Math.max(1, Math.floor(maxEntries * 0.75));
  }
}

/** Search boxes matter early (an encyclopedia's search box can sit in the sixth answer). */
function searchFields(text: string, from: number): string[] {
  const found: string[] = [];
  const pattern = /^ *((?:searchbox|textbox|combobox) "[^"\n]*search[^\n]*|searchbox [^\n]*)$/gim;
  pattern.lastIndex = from;
  for (let match = pattern.exec(text); match && found.length < SEARCH_FIELDS; match = pattern.exec(text)) {
    found.push((match[1] ?? '').slice(0, 200));
  }
  return found;
}
