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
  const target = total / max;
  const merged: Section[] = [];
  let group: Section[] = [];
  const close = () => {
    const first = group[0];
    const last = group[group.length - 1];
    if (!first || !last) return;
    merged.push({
      label: group.length === 1 ? first.label : `${first.label} … ${last.label} (${group.length} parts)`,
      start: first.start,
      end: last.end,
      controls: group.reduce((sum, section) => sum + section.controls, 0),
    });
    group = [];
  };
  let size = 0;
  for (const section of sections) {
    if (group.length > 0 && size + (section.end - section.start) > target) {
      close();
      size = 0;
    }
    group.push(section);
    size += section.end - section.start;
  }
  close();
  return merged;
}

/**
 * The map of what comes after `shownUpTo` in `text` (the part of the outline the first answer shows),
 * written to fit `outlineBudget(maxChars)`.
 */
export function outlineOf(text: string, shownUpTo: number, maxChars: number): string {
  const budget = outlineBudget(maxChars);
  const maxEntries = Math.max(MIN_ENTRIES, Math.min(MAX_ENTRIES, Math.floor(budget / ENTRY_CHARS) - 2));
  // A section with no control and little text (a landmark's line before its first heading) is noise.
  const later = sectionsOf(text)
    .filter((section) => section.end > shownUpTo)
    .map((section) =>
      section.start >= shownUpTo
        ? section
        : { ...section, start: shownUpTo, controls: countRefs(text.slice(shownUpTo, section.end)) },
    )
    .filter((section) => section.controls > 0 || section.end - section.start > 200);
  const entries = merge(later, maxEntries);
  const controls = countRefs(text);
  const pages = Math.ceil(text.length / maxChars);
  const shown =
    shownUpTo > 0 ? ` ${countRefs(text.slice(0, shownUpTo))} are shown below; the rest` : ' the page';
  const out = [
    `Outline: the page is ${text.length} chars (about ${pages} answers) with ${controls} controls;` +
      `${shown} by section (read one with browser_snapshot offset=N, or find="text"; ref=@eN opens a` +
      ' container control):',
  ];
  for (const entry of entries) {
    const from = Math.max(entry.start, shownUpTo);
    out.push(
      `- ${entry.label} — ${entry.controls} control${entry.controls === 1 ? '' : 's'}, offset=${from}`,
    );
  }
  const search = searchFields(text, shownUpTo);
  if (search.length > 0) out.push('Search fields further down:', ...search.map((line) => '  ' + line));
  let outline = out.join('\n');
  if (outline.length > budget) outline = outline.slice(0, Math.max(0, outline.lastIndexOf('\n', budget)));
  return outline;
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
