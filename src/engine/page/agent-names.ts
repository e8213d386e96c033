/**
 * The page side of the engine, part 2: what a snapshot says about one element — its role, its accessible
 * name (the spec's rules in short, hidden content left out), and the line of a control
 * (`role "name" @eN [states] = "value" → target`). Self-contained like the rest of `page/`; it installs
 * `state.names`, which the link targets (part 3) and the snapshot walk (part 4) use.
 */
import type { AgentState } from './agent-state.js';

export function installElementNames(): void {
  const g = globalThis as unknown as { __tabgate?: AgentState };
  const state = g.__tabgate;
  if (!state || state.names) return;

  /** A control's name longer than this is cut; a control whose own text is longer is shown as a container. */
  const NAME_MAX = 150;
  const SKIP = new Set(['SCRIPT', 'STYLE', 'NOSCRIPT', 'TEMPLATE', 'HEAD', 'META', 'LINK', 'TITLE']);
  const FIELDS = new Set(['INPUT', 'SELECT', 'TEXTAREA']);
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
  const STRUCTURAL: Record<string, string> = {
    DIALOG: 'dialog',
    NAV: 'navigation',
    MAIN: 'main',
    FORM: 'form',
    ASIDE: 'complementary',
    FIELDSET: 'group',
  };

  // Control characters (C0, DEL, C1) never reach the output: ours are markers, the page's are noise.
  // eslint-disable-next-line no-control-regex -- that is the point
  const clean = (text: string) => text.replace(/[\s\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  const cap = (text: string, max: number) => (text.length > max ? text.slice(0, max - 1) + '…' : text);
  const quote = (text: string) => JSON.stringify(text);

  /**
   * The text a reader sees in `root`, joined as the browser lays it out: inline pieces touch
   * (`Un<em>believ</em>able`), blocks and line breaks are set apart. Hidden content (display: none,
   * visibility: hidden, aria-hidden) is left out, an image counts as its alt text and an element with an
   * `aria-label` as that label; inside an `aria-hidden` tree (`inHidden`) that attribute hides nothing
   * more, as in the accessible-name spec. Stops reading once it has well over `max` characters.
   */
  function visibleText(root: Element, max: number, skipButtons: boolean, inHidden = false): string {
    let out = '';
    const visit = (node: Node): void => {
      if (out.length > max * 4) return;
      if (node.nodeType === Node.TEXT_NODE) {
        out += (node as Text).data;
        return;
      }
      if (!(node instanceof Element) || SKIP.has(node.tagName) || FIELDS.has(node.tagName)) return;
      if (skipButtons && node.tagName === 'BUTTON') return;
      if (!inHidden && node.getAttribute('aria-hidden') === 'true') return;
      const style = getComputedStyle(node);
      if (style.display === 'none' || style.visibility === 'hidden' || style.visibility === 'collapse')
        return;
      const label =
        node.getAttribute('aria-label') ?? (node.tagName === 'IMG' ? node.getAttribute('alt') : null);
      const block = !style.display.startsWith('inline') && style.display !== 'contents';
      if (label !== null || node.tagName === 'BR' || block) out += ' ';
      if (label !== null) out += label + ' ';
      else visitChildren(node);
      if (block) out += ' ';
    };
    const visitChildren = (el: Element) => {
      for (const kid of (el.shadowRoot ?? el).childNodes) visit(kid);
    };
    visitChildren(root);
    return clean(out);
  }

  function contentText(el: Element, inHidden: boolean): string {
    const text = visibleText(el, NAME_MAX, false, inHidden);
    if (text) return text;
    // An icon-only control: the title of its SVG.
    return clean(el.querySelector('svg title')?.textContent ?? '');
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
    if (STRUCTURAL[tag]) return STRUCTURAL[tag] ?? null;
    if (el instanceof HTMLElement && el.isContentEditable && !el.parentElement?.isContentEditable)
      return 'textbox';
    if (tag === 'LABEL' || tag === 'BODY' || tag === 'HTML') return null;
    const tabindex = el.getAttribute('tabindex');
    if (el.hasAttribute('onclick') || (tabindex !== null && Number(tabindex) >= 0)) return 'clickable';
    if (style.cursor === 'pointer' && parentCursor !== 'pointer') return 'clickable';
    return null;
  }

  /**
   * The accessible name; `fromContent: false` leaves the element's own text out (a container's), and
   * `inHidden` says the element sits in an `aria-hidden` tree (its hidden content then counts).
   */
  function nameOf(el: Element, role: string, fromContent = true, inHidden = false): string {
    const labelledBy = el.getAttribute('aria-labelledby');
    if (labelledBy) {
      const root = el.getRootNode() as Document | ShadowRoot;
      // Referenced content counts even when hidden: that is how pages label with off-screen text.
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
      const labels = [...(el.labels ?? [])]
        .map((label) => visibleText(label, NAME_MAX, true))
        .filter(Boolean)
        .join(' ');
      if (labels) return labels;
      const placeholder = clean(el.getAttribute('placeholder') ?? '');
      if (placeholder) return placeholder;
    }
    if (el.tagName === 'IMG')
      return clean(el.getAttribute('alt') ?? '') || clean(el.getAttribute('title') ?? '');
    if (el.tagName === 'FIELDSET') {
      const legend = el.querySelector('legend');
      return legend ? visibleText(legend, NAME_MAX, false) : '';
    }
    if (fromContent && NAME_FROM_CONTENT.has(role)) {
      const text = contentText(el, inHidden);
      if (text) return text;
    }
    return clean(el.getAttribute('title') ?? '');
  }

  function deepActive(): Element | null {
    let active = document.activeElement;
    while (active?.shadowRoot?.activeElement) active = active.shadowRoot.activeElement;
    return active;
  }

  /**
   * Whether an element in an `aria-hidden` tree is still there for a sighted user: a box of more than a
   * pixel inside the page's layout, not clipped away by an ancestor, not transparent, not inert. Sites
   * put aria-hidden on visible controls (a sign-in link); a closed menu or an off-screen copy fails here.
   */
  function seenDespiteAriaHidden(el: Element): boolean {
    const rect = el.getBoundingClientRect();
    const page = document.scrollingElement ?? document.documentElement;
    let left = Math.max(rect.left, -scrollX);
    let top = Math.max(rect.top, -scrollY);
    let right = Math.min(rect.right, page.scrollWidth - scrollX);
    let bottom = Math.min(rect.bottom, page.scrollHeight - scrollY);
    for (let node: Element | null = el; node; node = node.parentElement ?? hostOf(node)) {
      if (right - left <= 1 || bottom - top <= 1) return false;
      if (node.hasAttribute('inert')) return false;
      const style = getComputedStyle(node);
      if (style.opacity === '0') return false;
      // The root's and the body's overflow is the viewport's: the page's layout, already applied above.
      if (node === el || node === document.body || node === document.documentElement) continue;
      // What overflows a `hidden` or `clip` box is never seen; a scrolling box can bring it into view.
      const box = node.getBoundingClientRect();
      if (/hidden|clip/.test(style.overflowX))
        [left, right] = [Math.max(left, box.left), Math.min(right, box.right)];
      else if (style.overflowX !== 'visible' && box.width <= 1) return false;
      if (/hidden|clip/.test(style.overflowY))
        [top, bottom] = [Math.max(top, box.top), Math.min(bottom, box.bottom)];
      else if (style.overflowY !== 'visible' && box.height <= 1) return false;
    }
    return true;
  }

  function hostOf(node: Element): Element | null {
    const root = node.getRootNode();
    return root instanceof ShadowRoot ? root.host : null;
  }

  function statesOf(el: Element, secret: boolean): string[] {
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
    if (secret && input) {
      states.push(input.type === 'password' ? 'password' : 'secret');
      if (input.value !== '') states.push('filled');
    }
    if (el === deepActive()) states.push('focused');
    return states;
  }

  /**
   * The control's line piece; the ref is written as a marker (`\u0001<id>\u0002`) the engine replaces.
   * `inHidden` marks a control kept in an `aria-hidden` tree (`[aria-hidden]`).
   */
  function describe(el: Element, role: string, name: string, full: boolean, inHidden = false): string {
    let out = role + (name ? ' ' + quote(cap(name, NAME_MAX)) : '') + ' \u0001' + state!.idOf(el) + '\u0002';
    const input = el instanceof HTMLInputElement ? el : null;
    // Passwords, card numbers and codes, one-time codes and fields a vault secret filled: the value itself
    // never leaves the page.
    const secret =
      input !== null &&
      (input.type === 'password' ||
        state!.vaultFilled.has(input) ||
        /\b(cc-number|cc-csc|cc-exp(-month|-year)?|one-time-code|current-password|new-password)\b/i.test(
          input.getAttribute('autocomplete') ?? '',
        ));
    const states = statesOf(el, secret);
    if (inHidden) states.push('aria-hidden');
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
      if (input.value) out += ' = ' + quote(clean(input.value));
    } else if (role === 'textbox' && el instanceof HTMLElement && el.isContentEditable) {
      const value = clean(el.innerText);
      if (value) out += ' = ' + quote(cap(value, limit));
    } else if (el.hasAttribute('aria-valuenow')) {
      out += ' = ' + quote(clean(el.getAttribute('aria-valuenow') ?? ''));
    }
    if (role === 'link') out += state!.links?.mark(el, name) ?? '';
    return out;
  }

  state.names = { NAME_MAX, clean, cap, quote, roleOf, nameOf, describe, seenDespiteAriaHidden };
}
