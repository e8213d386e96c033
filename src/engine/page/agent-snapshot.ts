/**
 * The page side of the engine, part 4: the snapshot walk. A DOM walk over one frame's document (open
 * shadow roots included) producing the terse line format of docs/snapshot-format.md. Text is joined as
 * the browser lays it out: inline pieces touch, blocks and `<br>` start a new line, `<pre>` keeps its
 * spaces and line breaks. Each control's piece is wrapped in `\u0004…\u0005` so the engine knows where a
 * page may not be cut; refs are markers (`\u0001<id>\u0002`), iframes `\u0003<id>` at the end of their
 * line; the engine turns them into `@eN` refs and splices child frames in. Must stay self-contained (it is
 * serialised), and never reveals a password field's value (`agent-names.ts` writes the control pieces).
 */
import type { AgentState } from './agent-state.js';

export function installSnapshotWalker(): void {
  const g = globalThis as unknown as { __tabgate?: AgentState };
  const state = g.__tabgate;
  const names = state?.names;
  if (!state || !names || state.snapshot) return;
  const { NAME_MAX, clean, cap, quote } = names;

  const MAX_OUTPUT = 2_000_000;
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE']);
  const INTERACTIVE = new Set([
    'button',
    'link',
    'textbox',
    'searchbox',
    'checkbox',
    'radio',
    'combobox',
    'listbox',
    'option',
    'slider',
    'spinbutton',
    'switch',
    'tab',
    'menuitem',
    'menuitemcheckbox',
    'menuitemradio',
    'treeitem',
    'clickable',
  ]);
  const ACTION_ROLES = new Set(['button', 'link', 'tab', 'menuitem', 'clickable', 'option', 'treeitem']);
  const NESTED_CONTROL = 'a[href], button, input, select, textarea, [role=button], [role=link]';
  const LANDMARKS: Record<string, string> = {
    navigation: 'nav',
    main: 'main',
    form: 'form',
    dialog: 'dialog',
    alertdialog: 'alertdialog',
    search: 'search',
    complementary: 'aside',
    group: 'group',
    region: 'region',
  };
  // eslint-disable-next-line no-control-regex -- page text must not carry our marker characters
  const SPACES = /[\s\u0000-\u001f\u007f-\u009f]+/g;
  // eslint-disable-next-line no-control-regex -- the same, keeping spaces as they are
  const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

  const OPAQUE = /^rgb\(|^rgba\((?:[^,]+,){3} *1\)$/;
  const TRANSPARENT_TEXT = /^rgba\((?:[^,]+,){3} *0\)$|^transparent$/;
  const WHITE = 'rgb(255, 255, 255)';
  const opaqueBackground = (el: Element | null): string => {
    if (!el) return '';
    const color = getComputedStyle(el).backgroundColor;
    return OPAQUE.test(color) ? color : '';
  };

  // Compact mode keeps the first lines of a run of plain text (enough to know what the block is about)
  // and says how many more there are, when that saves at least two lines; controls and headings stay.
  const compactRuns = (lines: string[], textOnly: boolean[]): string => {
    const out: string[] = [];
    let run = 0;
    for (let i = 0; i <= lines.length; i++) {
      const line = lines[i];
      if (line !== undefined && textOnly[i]) {
        run++;
        if (run <= 2) out.push(line);
        continue;
      }
      if (run === 3) out.push(lines[i - 1] ?? '');
      if (run > 3) {
        const first = lines[i - run] ?? '';
        out.push(/^ */.exec(first)?.[0] + `… ${run - 2} more lines of text (full: true shows them)`);
      }
      run = 0;
      if (line !== undefined) out.push(line);
    }
    return out.join('\n');
  };

  // The prose on a line with controls, in compact mode: up to AROUND characters on each side of a
  // control (cut at a word), the rest folded to `…`. Control pieces sit in `\u0004…\u0005`.
  const AROUND = 40;
  // eslint-disable-next-line no-control-regex -- the walker's control brackets
  const PIECES = /(\u0004[^\u0005]*\u0005)/;
  const nearControls = (text: string): string => {
    const parts = text.split(PIECES);
    if (parts.length < 3) return text;
    const last = parts.length - 1;
    return parts
      .map((part, i) => {
        if (i % 2 === 1) return part;
        const keepHead = i === 0 ? 0 : AROUND;
        const keepTail = i === last ? 0 : AROUND;
        if (part.length <= keepHead + keepTail + 3) return part;
        const head = part.slice(0, keepHead);
        const tail = part.slice(part.length - keepTail);
        const headCut = head.lastIndexOf(' ', keepHead - 1);
        const tailCut = tail.indexOf(' ', 1);
        return (
          (keepHead ? (headCut > 0 ? head.slice(0, headCut) : head) + ' ' : '') +
          '…' +
          (keepTail ? ' ' + (tailCut > 0 ? tail.slice(tailCut + 1) : tail) : '')
        );
      })
      .join('');
  };

  // `mark: false` skips the checks for text a person cannot see: only `bench:engine` asks, to weigh them.
  state.snapshot = (full: boolean, mark = true): string => {
    state.links?.begin(full);
    const lines: string[] = [];
    const textOnly: boolean[] = [];
    let size = 0;
    let stopped = false;
    // The line being built, and what it holds.
    let line = '';
    let pre = false;
    let interactive = false;
    let hasField = false;
    let heading = 0;
    const indent = (depth: number) => '  '.repeat(depth);
    const push = (text: string, plain = false) => {
      lines.push(text);
      textOnly.push(plain);
      size += text.length + 1;
      if (size > MAX_OUTPUT) stopped = true;
    };
    const flush = (depth: number) => {
      let text = pre ? line.trimEnd() : line.trim();
      if (text) {
        // A line with a control never loses one: every ref on it stays whole and clickable; compact mode
        // keeps the words next to each control and cuts the prose further away.
        if (interactive && !full && !pre) text = nearControls(text);
        if (heading) text = '#'.repeat(heading) + ' ' + (interactive ? text : cap(text, 300));
        else if (!interactive && !full && !pre) text = cap(text, 100);
        push(indent(depth) + text, !interactive && !heading);
      }
      line = '';
      pre = false;
      interactive = false;
      hasField = false;
      heading = 0;
    };
    // Text touches the text before it, as inline boxes do; runs of white space count as one space.
    const addText = (raw: string) => {
      const text = raw.replace(SPACES, ' ');
      line += line === '' || line.endsWith(' ') ? text.replace(/^ /, '') : text;
    };
    // A control, an image or a cell separator is always set off from its neighbours by spaces.
    const addPiece = (piece: string) => {
      if (line !== '' && !line.endsWith(' ')) line += ' ';
      line += piece + ' ';
    };
    // Preformatted text keeps its spaces; each of its line breaks ends a line of the outline.
    const addPre = (raw: string, depth: number) => {
      const parts = raw.replace(/\t/g, '    ').replace(/\r\n?/g, '\n').replace(CONTROLS, '').split('\n');
      parts.forEach((part, i) => {
        if (i > 0) flush(depth);
        line += part;
        pre = true;
      });
    };
    // Text a person cannot see (see-through, off-screen, squeezed to nothing, or in the colour of what
    // is behind it) is left out: it is where pages hide instructions meant only for a model. Controls
    // in it keep their line, as their names follow the accessible-name rules.
    let concealed = false;
    // The colour behind the text, as far as the walk can tell ('' under a background image).
    let background = opaqueBackground(document.body) || opaqueBackground(document.documentElement) || WHITE;
    const conceals = (el: Element, style: CSSStyleDeclaration): boolean => {
      if (style.opacity === '0' || style.fontSize === '0px' || parseFloat(style.textIndent) < -999)
        return true;
      if (TRANSPARENT_TEXT.test(style.color) || (background !== '' && style.color === background))
        return true;
      const positioned = style.position === 'absolute' || style.position === 'fixed';
      const clipped = style.overflow === 'hidden' || style.overflow === 'clip';
      if (!positioned && !clipped) return false;
      const box = el.getBoundingClientRect();
      if (clipped && (box.width <= 1 || box.height <= 1)) return true;
      if (box.right + scrollX <= 0 || box.bottom + scrollY <= 0) return true;
      return style.position === 'fixed' && (box.left >= innerWidth || box.top >= innerHeight);
    };
    const control = (el: Element, role: string, name: string, inHidden: boolean) =>
      '\u0004' + names.describe(el, role, name, full, inHidden) + '\u0005';

    // `hidden`: inside an aria-hidden tree, where only controls a user can still see are kept.
    const walkChildren = (
      parent: Element,
      depth: number,
      quiet: boolean,
      cursor: string,
      inPre: boolean,
      hidden: boolean,
    ) => {
      if (parent.shadowRoot) state.watch(parent.shadowRoot);
      let kids: Iterable<Node> = parent.shadowRoot ? parent.shadowRoot.childNodes : parent.childNodes;
      if (parent instanceof HTMLSlotElement) {
        const assigned = parent.assignedNodes({ flatten: true });
        if (assigned.length > 0) kids = assigned;
      }
      for (const kid of kids) {
        if (stopped) return;
        walk(kid, depth, quiet, cursor, inPre, hidden);
      }
    };
    const walk = (
      node: Node,
      depth: number,
      quiet: boolean,
      parentCursor: string,
      inPre: boolean,
      inHidden: boolean,
    ): void => {
      if (node.nodeType === Node.TEXT_NODE) {
        if (quiet || inHidden || concealed) return;
        if (inPre) addPre((node as Text).data, depth);
        else addText((node as Text).data);
        return;
      }
      if (!(node instanceof Element) || SKIP.has(node.tagName)) return;
      const style = getComputedStyle(node);
      if (style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse')
        return;
      const outerConcealed = concealed;
      const outerBackground = background;
      // Only elements the page styles one by one (a class, an id, a style attribute) are checked: an
      // element without them looks like its neighbours of the same tag, and inherits its verdict. Reading
      // computed styles is most of a walk's cost, so this keeps the checks to about a tenth of it.
      // `hasAttributes()` first: one call rules out the bare elements most of a long page is made of.
      if (
        mark &&
        !concealed &&
        node.hasAttributes() &&
        (node.hasAttribute('class') || node.hasAttribute('style') || node.id)
      ) {
        const image = style.backgroundImage !== 'none';
        if (image || OPAQUE.test(style.backgroundColor)) background = image ? '' : style.backgroundColor;
        concealed = conceals(node, style);
      }
      walkElement(node, style, depth, quiet, parentCursor, inPre, inHidden);
      concealed = outerConcealed;
      background = outerBackground;
    };
    const walkElement = (
      el: Element,
      style: CSSStyleDeclaration,
      depth: number,
      quiet: boolean,
      parentCursor: string,
      inPre: boolean,
      inHidden: boolean,
    ): void => {
      const hidden = inHidden || el.getAttribute('aria-hidden') === 'true';
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        if (hidden) return;
        flush(depth);
        const title = clean(el.getAttribute('title') ?? el.getAttribute('name') ?? '');
        push(
          indent(depth) + 'iframe' + (title ? ' ' + quote(cap(title, 100)) : '') + '\u0003' + state.idOf(el),
        );
        return;
      }
      const role = names.roleOf(el, style, parentCursor);
      const display = style.display;
      const block = !display.startsWith('inline') && display !== 'contents' && display !== 'table-cell';
      const keepSpaces = /^(pre|break-spaces)/.test(style.whiteSpace);
      if (display === 'table-cell' && line.trim() !== '' && !hidden) addPiece('|');
      if (role && INTERACTIVE.has(role) && (!hidden || names.seenDespiteAriaHidden(el))) {
        const field = !ACTION_ROLES.has(role);
        // A control around other controls, or around more text than a name holds (a clickable card, a
        // link around a whole teaser), keeps its ref on a line of its own and its content is walked.
        if (!field) {
          const nested = el.querySelector(NESTED_CONTROL) !== null;
          const name = nested ? '' : names.nameOf(el, role, true, hidden);
          if (nested || name.length > NAME_MAX) {
            flush(depth);
            push(indent(depth) + control(el, role, names.nameOf(el, role, false, hidden), hidden) + ':');
            // What a user sees inside a control they can see is read like any other content.
            walkChildren(el, depth + 1, quiet, style.cursor, keepSpaces, false);
            flush(depth + 1);
            return;
          }
          if (block || hasField) flush(depth);
          addPiece(control(el, role, name, hidden));
          interactive = true;
          hasField = false;
          if (block) flush(depth);
          return;
        }
        // A form field gets its own line; links and buttons may share a line with text and each other.
        if (block || hasField || interactive) flush(depth);
        addPiece(control(el, role, names.nameOf(el, role, true, hidden), hidden));
        interactive = true;
        hasField = true;
        if (block) flush(depth);
        return;
      }
      if (hidden) {
        // Nothing but the controls still seen: no text, headings, landmarks or images of their own.
        if (block || el.tagName === 'BR') flush(depth);
        walkChildren(el, depth, quiet, style.cursor, keepSpaces, true);
        if (block) flush(depth);
        return;
      }
      if (role === 'heading') {
        flush(depth);
        heading = Number(el.getAttribute('aria-level')) || Number(el.tagName.slice(1)) || 2;
        walkChildren(el, depth, quiet, style.cursor, keepSpaces, false);
        flush(depth);
        return;
      }
      const landmark = role ? LANDMARKS[role] : undefined;
      const landmarkName = landmark ? cap(names.nameOf(el, role ?? ''), 100) : '';
      if (landmark && ((role !== 'group' && role !== 'region') || landmarkName)) {
        flush(depth);
        const mark = lines.length;
        push(indent(depth) + landmark + (landmarkName ? ' ' + quote(landmarkName) : '') + ':');
        walkChildren(el, depth + 1, quiet, style.cursor, keepSpaces, false);
        flush(depth + 1);
        if (lines.length === mark + 1) {
          lines.pop();
          textOnly.pop();
        }
        return;
      }
      if (role === 'img') {
        const alt = full ? cap(names.nameOf(el, role), 150) : '';
        if (alt) addPiece('img ' + quote(alt));
        return;
      }
      if (el.tagName === 'BR') {
        flush(depth);
        return;
      }
      const labelling = el instanceof HTMLLabelElement && el.control !== null;
      if (block) flush(depth);
      walkChildren(el, depth, quiet || labelling, style.cursor, keepSpaces, false);
      if (block) flush(depth);
    };
    const root = document.body ?? document.documentElement;
    if (root) {
      const style = getComputedStyle(root);
      walkChildren(root, 0, false, style.cursor, /^(pre|break-spaces)/.test(style.whiteSpace), false);
    }
    flush(0);
    if (stopped) lines.push('… (the page is too large; the rest was not read)');
    const text = full ? lines.join('\n') : compactRuns(lines, textOnly);
    return state.links ? state.links.settle(text) : text;
  };
}
