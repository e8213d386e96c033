/**
 * The page side of the engine, part 2: the snapshot walk. A DOM walk with accessible roles and names over
 * one frame's document (open shadow roots included), producing the terse line format of
 * docs/snapshot-format.md. Refs are written as markers (`\u0001<id>\u0002`) and iframes as `\u0003<id>`
 * at the end of their line; the engine turns them into `@eN` refs and splices child frames in. Must stay
 * self-contained (it is serialised), and never reveals a password field's value.
 */
import type { AgentState } from './agent-state.js';

export function installSnapshotWalker(): void {
  const g = globalThis as unknown as { __tabgate?: AgentState };
  const state = g.__tabgate;
  if (!state || state.snapshot) return;

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
  const NAME_FROM_CONTENT = new Set([
    'button',
    'link',
    'tab',
    'menuitem',
    'menuitemcheckbox',
    'menuitemradio',
    'option',
    'checkbox',
    'radio',
    'switch',
    'treeitem',
    'clickable',
    'heading',
  ]);
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
  const INPUT_ROLES: Record<string, string> = {
    checkbox: 'checkbox',
    radio: 'radio',
    range: 'slider',
    number: 'spinbutton',
    search: 'searchbox',
    button: 'button',
    submit: 'button',
    reset: 'button',
    image: 'button',
    file: 'button',
  };

  // eslint-disable-next-line no-control-regex -- page text must not carry our marker characters
  const clean = (text: string) => text.replace(/[\u0000-\u001f\s]+/g, ' ').trim();
  const cap = (text: string, max: number) => (text.length > max ? text.slice(0, max - 1) + '…' : text);
  const quote = (text: string) => JSON.stringify(text);

  function contentText(el: Element): string {
    const text = clean(el.textContent ?? '');
    if (text) return text;
    const labelled = el.querySelector('img[alt], [aria-label], svg title');
    if (!labelled) return '';
    return clean(
      labelled.getAttribute('alt') ?? labelled.getAttribute('aria-label') ?? labelled.textContent ?? '',
    );
  }

  // Label text without the text of controls nested in the label (a select's options, say).
  function labelText(node: Node): string {
    let out = '';
    for (const child of node.childNodes) {
      if (child.nodeType === Node.TEXT_NODE) out += ' ' + (child as Text).data;
      else if (child instanceof Element && !/^(INPUT|SELECT|TEXTAREA|BUTTON)$/.test(child.tagName)) {
        out += ' ' + labelText(child);
      }
    }
    return clean(out);
  }

  function roleOf(el: Element, style: CSSStyleDeclaration, parentCursor: string): string | null {
    const explicit = el.getAttribute('role')?.trim().split(/\s+/)[0];
    if (explicit && explicit !== 'none' && explicit !== 'presentation' && explicit !== 'generic')
      return explicit;
    const tag = el.tagName;
    if (tag === 'A') return el.hasAttribute('href') ? 'link' : null;
    if (tag === 'BUTTON' || tag === 'SUMMARY') return 'button';
    if (tag === 'SELECT')
      return (el as HTMLSelectElement).multiple || (el as HTMLSelectElement).size > 1
        ? 'listbox'
        : 'combobox';
    if (tag === 'TEXTAREA') return 'textbox';
    if (tag === 'INPUT') {
      const type = (el as HTMLInputElement).type;
      return type === 'hidden' ? null : (INPUT_ROLES[type] ?? 'textbox');
    }
    if (tag === 'IMG') return el.getAttribute('alt') === '' ? null : 'img';
    if (/^H[1-6]$/.test(tag)) return 'heading';
    const structural: Record<string, string> = {
      DIALOG: 'dialog',
      NAV: 'navigation',
      MAIN: 'main',
      FORM: 'form',
      ASIDE: 'complementary',
      FIELDSET: 'group',
    };
    if (structural[tag]) return structural[tag] ?? null;
    if (el instanceof HTMLElement && el.isContentEditable && !el.parentElement?.isContentEditable)
      return 'textbox';
    if (tag === 'LABEL' || tag === 'BODY' || tag === 'HTML') return null;
    const tabindex = el.getAttribute('tabindex');
    if (el.hasAttribute('onclick') || (tabindex !== null && Number(tabindex) >= 0)) return 'clickable';
    if (style.cursor === 'pointer' && parentCursor !== 'pointer') return 'clickable';
    return null;
  }

  function nameOf(el: Element, role: string): string {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const root = el.getRootNode() as Document | ShadowRoot;
      const text = clean(
        labelledBy
          .split(/\s+/)
          .map((id) => root.getElementById?.(id)?.textContent ?? '')
          .join(' '),
      );
      if (text) return text;
    }
    const ariaLabel = clean(el.getAttribute('aria-label') ?? '');
    if (ariaLabel) return ariaLabel;
    if (el instanceof HTMLInputElement && /^(button|submit|reset)$/.test(el.type)) {
      return clean(el.value) || (el.type === 'submit' ? 'Submit' : el.type === 'reset' ? 'Reset' : '');
    }
    if (
      el instanceof HTMLInputElement ||
      el instanceof HTMLSelectElement ||
      el instanceof HTMLTextAreaElement
    ) {
      if (el instanceof HTMLInputElement && el.type === 'image') return clean(el.alt);
      const labels = [...(el.labels ?? [])].map(labelText).filter(Boolean).join(' ');
      if (labels) return labels;
      const placeholder = clean(el.getAttribute('placeholder') ?? '');
      if (placeholder) return placeholder;
    }
    if (el.tagName === 'IMG')
      return clean(el.getAttribute('alt') ?? '') || clean(el.getAttribute('title') ?? '');
    if (el.tagName === 'FIELDSET') return clean(el.querySelector('legend')?.textContent ?? '');
    if (NAME_FROM_CONTENT.has(role)) {
      const text = contentText(el);
      if (text) return text;
    }
    return clean(el.getAttribute('title') ?? '');
  }

  function hrefOf(el: Element): string {
    const href = (el as HTMLAnchorElement).href;
    if (!href || href.startsWith('javascript:')) return '';
    try {
      const url = new URL(href);
      return cap(url.origin === location.origin ? url.pathname + url.search + url.hash : url.href, 100);
    } catch {
      return '';
    }
  }

  function deepActive(): Element | null {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    return active;
  }

  function describe(el: Element, role: string, full: boolean): string {
    const name = cap(nameOf(el, role), 150);
    let out = role + (name ? ' ' + quote(name) : '') + ' \u0001' + state!.idOf(el) + '\u0002';
    const states: string[] = [];
    const input = el instanceof HTMLInputElement ? el : null;
    if ((el as HTMLButtonElement).disabled === true || el.getAttribute('aria-disabled') === 'true')
      states.push('disabled');
    const checked =
      input && /^(checkbox|radio)$/.test(input.type)
        ? input.checked
        : el.getAttribute('aria-checked') === 'true';
    if (checked) states.push('checked');
    if ((input?.indeterminate ?? false) || el.getAttribute('aria-checked') === 'mixed') states.push('mixed');
    const expanded = el.getAttribute('aria-expanded');
    if (expanded === 'true') states.push('expanded');
    if (expanded === 'false') states.push('collapsed');
    if (el.getAttribute('aria-selected') === 'true') states.push('selected');
    if (el.getAttribute('aria-pressed') === 'true') states.push('pressed');
    if ((input?.required ?? false) || el.getAttribute('aria-required') === 'true') states.push('required');
    // Passwords, card numbers and codes, and one-time codes: the value itself never leaves the page.
    const secret =
      input !== null &&
      (input.type === 'password' ||
        /\b(cc-number|cc-csc|cc-exp(-month|-year)?|one-time-code|current-password|new-password)\b/i.test(
          input.getAttribute('autocomplete') ?? '',
        ));
    if (secret) {
      states.push(input.type === 'password' ? 'password' : 'secret');
      if (input.value !== '') states.push('filled');
    }
    if (el === deepActive()) states.push('focused');
    if (states.length > 0) out += ` [${states.join(', ')}]`;
    const limit = full ? 500 : 80;
    if (el instanceof HTMLSelectElement) {
      const chosen = [...el.selectedOptions].map((o) => clean(o.label)).join(', ');
      if (chosen) out += ' = ' + quote(cap(chosen, limit));
      const labels = [...el.options].map((o) => clean(o.label));
      const shown = full ? labels : labels.slice(0, 10);
      out +=
        ' options: ' +
        shown.join(' | ') +
        (shown.length < labels.length ? ` +${labels.length - shown.length} more` : '');
    } else if ((input && !secret && !INPUT_ROLES[input.type]) || el instanceof HTMLTextAreaElement) {
      const value = (el as HTMLInputElement).value;
      if (value) out += ' = ' + quote(cap(clean(value), limit));
    } else if (input && /^(range|number)$/.test(input.type)) {
      if (input.value) out += ' = ' + quote(input.value);
    } else if (role === 'textbox' && el instanceof HTMLElement && el.isContentEditable) {
      const value = clean(el.innerText);
      if (value) out += ' = ' + quote(cap(value, limit));
    } else if (el.hasAttribute('aria-valuenow')) {
      out += ' = ' + quote(el.getAttribute('aria-valuenow') ?? '');
    }
    if (role === 'link') {
      const href = hrefOf(el);
      if (href) out += ' → ' + href;
    }
    return out;
  }

  // Compact mode keeps the first lines of a run of plain text (enough to know what the block is about)
  // and says how many more there are; interactive lines and headings are always kept.
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
      if (run > 2) {
        const previous = lines[i - 1] ?? '';
        out.push(/^ */.exec(previous)?.[0] + `… ${run - 2} more lines of text (full: true shows them)`);
      }
      run = 0;
      if (line !== undefined) out.push(line);
    }
    return out.join('\n');
  };

  state.snapshot = (full: boolean): string => {
    const lines: string[] = [];
    let size = 0;
    let stopped = false;
    let segs: string[] = [];
    let interactive = false;
    let heading = 0;
    let hasField = false;
    const indent = (depth: number) => '  '.repeat(depth);
    const textOnly: boolean[] = [];
    const push = (line: string, text = false) => {
      lines.push(line);
      textOnly.push(text);
      size += line.length + 1;
      if (size > MAX_OUTPUT) stopped = true;
    };
    const flush = (depth: number) => {
      if (segs.length > 0) {
        let text = segs.join(' ').replace(/^\| /, '');
        if (heading) text = '#'.repeat(heading) + ' ' + cap(text, 300);
        else if (!interactive && !full) text = cap(text, 100);
        push(indent(depth) + text, !interactive && !heading);
      }
      segs = [];
      interactive = false;
      hasField = false;
      heading = 0;
    };
    const walkChildren = (parent: Element, depth: number, quiet: boolean, cursor: string) => {
      let kids: Iterable<Node> = parent.shadowRoot ? parent.shadowRoot.childNodes : parent.childNodes;
      if (parent instanceof HTMLSlotElement) {
        const assigned = parent.assignedNodes({ flatten: true });
        if (assigned.length > 0) kids = assigned;
      }
      for (const kid of kids) {
        if (stopped) return;
        walk(kid, depth, quiet, cursor);
      }
    };
    const walk = (node: Node, depth: number, quiet: boolean, parentCursor: string): void => {
      if (node.nodeType === Node.TEXT_NODE) {
        const text = quiet ? '' : clean((node as Text).data);
        if (text) segs.push(text);
        return;
      }
      if (!(node instanceof Element) || SKIP.has(node.tagName)) return;
      const el = node;
      if (el.getAttribute('aria-hidden') === 'true') return;
      const style = getComputedStyle(el);
      if (style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse')
        return;
      if (el.tagName === 'IFRAME' || el.tagName === 'FRAME') {
        flush(depth);
        const title = clean(el.getAttribute('title') ?? el.getAttribute('name') ?? '');
        push(
          indent(depth) + 'iframe' + (title ? ' ' + quote(cap(title, 100)) : '') + '\u0003' + state.idOf(el),
        );
        return;
      }
      const role = roleOf(el, style, parentCursor);
      const display = style.display;
      const block = !display.startsWith('inline') && display !== 'contents' && display !== 'table-cell';
      if (display === 'table-cell' && segs.length > 0) segs.push('|');
      if (role && INTERACTIVE.has(role)) {
        // A form field gets its own line; links and buttons may share a line with text and each other.
        const field = !ACTION_ROLES.has(role);
        if (block || hasField || (field && interactive)) flush(depth);
        segs.push(describe(el, role, full));
        interactive = true;
        hasField = field;
        if (el.querySelector('a[href], button, input, select, textarea, [role=button], [role=link]')) {
          walkChildren(el, depth, true, style.cursor);
        }
        if (block) flush(depth);
        return;
      }
      if (role === 'heading') {
        flush(depth);
        heading = Number(el.getAttribute('aria-level')) || Number(el.tagName.slice(1)) || 2;
        walkChildren(el, depth, quiet, style.cursor);
        flush(depth);
        return;
      }
      const landmark = role ? LANDMARKS[role] : undefined;
      const landmarkName = landmark ? cap(nameOf(el, role ?? ''), 100) : '';
      if (landmark && ((role !== 'group' && role !== 'region') || landmarkName)) {
        flush(depth);
        const mark = lines.length;
        push(indent(depth) + landmark + (landmarkName ? ' ' + quote(landmarkName) : '') + ':');
        walkChildren(el, depth + 1, quiet, style.cursor);
        flush(depth + 1);
        if (lines.length === mark + 1) {
          lines.pop();
          textOnly.pop();
        }
        return;
      }
      if (role === 'img') {
        const alt = full ? cap(nameOf(el, role), 150) : '';
        if (alt) segs.push('img ' + quote(alt));
        return;
      }
      if (el.tagName === 'BR') {
        flush(depth);
        return;
      }
      const labelling = el instanceof HTMLLabelElement && el.control !== null;
      if (block) flush(depth);
      walkChildren(el, depth, quiet || labelling, style.cursor);
      if (block) flush(depth);
    };
    const root = document.body ?? document.documentElement;
    if (root) walkChildren(root, 0, false, getComputedStyle(root).cursor);
    flush(0);
    if (stopped) lines.push('… (the page is too large; the rest was not read)');
    return full ? lines.join('\n') : compactRuns(lines, textOnly);
  };
}
