/**
 * The page side of the engine, part 1: the ref registry and the actions' DOM work. It runs inside an
 * isolated world of each frame (never the page's own world), so page scripts can neither see nor forge
 * the ref map. The function below is serialised with `Function.prototype.toString` and must therefore be
 * self-contained: no imports, no closures over module scope. Types are erased and may be shared.
 */

export type ResolveOutcome =
  | { ok: true; x: number; y: number }
  | { ok: false; reason: 'stale' | 'hidden' | 'disabled' | 'outside' }
  | { ok: false; reason: 'covered'; by: string };

/**
 * What a click's press met, from a probe armed just before the mouse events were sent: the element
 * (`pressed`), or something else (`missed`, described; that press, its release and its click were
 * stopped before the page saw them). Neither when the probe saw no press at all.
 */
export interface ClickProbe {
  pressed: boolean;
  missed: string | null;
}

export type FocusOutcome =
  | { ok: true; kind: 'text' | 'content'; empty: boolean; password: boolean }
  | { ok: true; kind: 'select'; chosen: string }
  | { ok: false; reason: 'stale' | 'disabled' | 'readonly' | 'not_editable' | 'no_option'; detail?: string };

/** What the snapshot walk asks of one element (`agent-names.ts`). */
export interface ElementNames {
  NAME_MAX: number;
  clean: (text: string) => string;
  cap: (text: string, max: number) => string;
  quote: (text: string) => string;
  roleOf: (el: Element, style: CSSStyleDeclaration, parentCursor: string) => string | null;
  nameOf: (el: Element, role: string, fromContent?: boolean, inHidden?: boolean) => string;
  describe: (el: Element, role: string, name: string, full: boolean, inHidden?: boolean) => string;
  seenDespiteAriaHidden: (el: Element) => boolean;
}

/** Link targets (`agent-links.ts`): marked during a walk, decided once the whole frame is known. */
export interface LinkTargets {
  begin: (full: boolean) => void;
  /** What follows the link's piece: ` → target`, nothing, or a marker that `settle` replaces. */
  mark: (el: Element, name: string) => string;
  settle: (text: string) => string;
}

export interface AgentState {
  ids: WeakMap<Element, number>;
  elements: Map<number, WeakRef<Element>>;
  next: number;
  idOf(el: Element): number;
  lookup(id: number): Element | null;
  hitTest(x: number, y: number): Element | null;
  contains(target: Element, node: Node | null): boolean;
  describe(el: Element): string;
  names?: ElementNames;
  links?: LinkTargets;
  snapshot?: (full: boolean, mark?: boolean) => string;
  /** The page's main content as clean text (`agent-reader.ts`). */
  read?: () => string;
  /** Removes the armed click probe's listeners and returns what it saw. */
  disarmClick?: () => ClickProbe;
  /** Fields a vault secret was filled into: the snapshot shows them as `[secret, filled]`, never their value. */
  vaultFilled: WeakSet<Element>;
  /**
   * Bumped by anything that can change what a snapshot shows (a DOM mutation, in the document or a
   * shadow root the walk went into, a value typed, a scroll, a resize): equal counts mean the last walk
   * still stands, so the pages of one long snapshot are read from that walk instead of walking again.
   */
  changes: number;
  /** Counts mutations under a shadow root too (the document's observer does not see into it). */
  watch(root: Node): void;
  /** Commands installed by the other parts (`agent-secrets.ts`). */
  extraCommands: Record<string, (arg: unknown, self: unknown) => unknown>;
  run(command: string, arg: unknown, self: unknown): unknown;
}

export function installAgentState(): void {
  const g = globalThis as unknown as { __tabgate?: AgentState };
  if (g.__tabgate) return;

  // eslint-disable-next-line no-control-regex -- page text must not carry our marker characters
  const clean = (text: string) => text.replace(/[\u0000-\u001f\s]+/g, ' ').trim();
  const disabled = (el: Element) =>
    (el as HTMLButtonElement).disabled === true || el.getAttribute('aria-disabled') === 'true';

  const bump = () => {
    state.changes++;
  };
  const observer = new MutationObserver(bump);
  // Mutations the observer has not reported yet count too, so a count never says "unchanged" early.
  const settledChanges = () => {
    if (observer.takeRecords().length > 0) bump();
    return state.changes;
  };
  // This document's last walk in each mode, while its change count stands: the first answer after a
  // navigation, and every page read on from it, reuse it. A new document has a new state, so a new cache.
  const walks = new Map<boolean, { changes: number; text: string }>();
  const watched = new WeakSet<Node>();
  const state: AgentState = {
    ids: new WeakMap(),
    elements: new Map(),
    next: 1,
    vaultFilled: new WeakSet(),
    changes: 0,
    watch(root) {
      if (watched.has(root)) return;
      watched.add(root);
      observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
    },
    extraCommands: {},
    idOf(el) {
      let id = state.ids.get(el);
      if (id === undefined) {
        id = state.next++;
        state.ids.set(el, id);
        state.elements.set(id, new WeakRef(el));
      }
      return id;
    },
    // A ref acts on its own node or on nothing: gone, collected or detached all count as stale.
    lookup(id) {
      const el = state.elements.get(id)?.deref();
      if (!el || !el.isConnected || el.ownerDocument !== document) return null;
      return el;
    },
    hitTest(x, y) {
      let hit = document.elementFromPoint(x, y);
      while (hit?.shadowRoot) {
        const inner = hit.shadowRoot.elementFromPoint(x, y);
        if (!inner || inner === hit) break;
        hit = inner;
      }
      return hit;
    },
    contains(target, node) {
      for (let n: Node | null = node; n; n = n.parentNode ?? (n as ShadowRoot).host ?? null) {
        if (n === target) return true;
      }
      return false;
    },
    describe(el) {
      const id = el.id ? `#${el.id}` : '';
      const cls = typeof el.className === 'string' && el.className ? '.' + el.className.split(/\s+/)[0] : '';
      const text = clean(el.textContent ?? '').slice(0, 40);
      return `${el.tagName.toLowerCase()}${id}${cls}${text ? ` "${text}"` : ''}`;
    },
    run(command, arg, self) {
      const handler = commands[command] ?? state.extraCommands[command];
      if (!handler) throw new Error(`unknown page command ${command}`);
      return handler(arg, self);
    },
  };

  /** The middle of a box, clipped to the viewport; null when none of it is in view. */
  const middleInView = (rect: DOMRect): { x: number; y: number } | null => {
    const left = Math.max(rect.left, 0);
    const top = Math.max(rect.top, 0);
    const right = Math.min(rect.right, window.innerWidth);
    const bottom = Math.min(rect.bottom, window.innerHeight);
    if (right <= left || bottom <= top) return null;
    return { x: (left + right) / 2, y: (top + bottom) / 2 };
  };

  const receives = (el: Element, hit: Element): boolean => {
    const label = hit.closest('label');
    return state.contains(el, hit) || (label !== null && label.control === el);
  };

  /**
   * Where a click reaches the element: the middle of its box, or else the middle of one of its line
   * boxes. A link that wraps onto a second line has a box whose middle lies on the words around it,
   * not on either piece of the link; each piece's middle is the link's own.
   */
  const viewportPoint = (el: Element): ResolveOutcome => {
    const rect = el.getBoundingClientRect();
    if (rect.width <= 0 || rect.height <= 0) return { ok: false, reason: 'hidden' };
    const first = middleInView(rect);
    if (!first) return { ok: false, reason: 'outside' };
    const firstHit = state.hitTest(first.x, first.y);
    if (firstHit && receives(el, firstHit)) return { ok: true, ...first };
    const pieces = el.getClientRects();
    if (pieces.length > 1) {
      for (const piece of pieces) {
        const point = piece.width > 0 && piece.height > 0 ? middleInView(piece) : null;
        const hit = point && state.hitTest(point.x, point.y);
        if (point && hit && receives(el, hit)) return { ok: true, ...point };
      }
    }
    if (!firstHit) return { ok: false, reason: 'outside' };
    return { ok: false, reason: 'covered', by: state.describe(firstHit) };
  };

  const commands: Record<string, (arg: unknown, self: unknown) => unknown> = {
    idOf: (_arg, self) => state.idOf(self as Element),
    scrollIntoView: (id) => {
      const el = state.lookup(id as number);
      if (!el) return false;
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      return true;
    },
    resolve: (id): ResolveOutcome => {
      const el = state.lookup(id as number);
      if (!el) return { ok: false, reason: 'stale' };
      if (disabled(el)) return { ok: false, reason: 'disabled' };
      el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
      return viewportPoint(el);
    },
    // Where a point inside the iframe with this id lands in this frame's viewport, checked for cover.
    frameOffset: (arg): ResolveOutcome => {
      const { id, x, y } = arg as { id: number; x: number; y: number };
      const el = state.lookup(id);
      if (!el) return { ok: false, reason: 'stale' };
      const rect = el.getBoundingClientRect();
      const style = getComputedStyle(el);
      const px = rect.left + el.clientLeft + parseFloat(style.paddingLeft) + x;
      const py = rect.top + el.clientTop + parseFloat(style.paddingTop) + y;
      const hit = state.hitTest(px, py);
      if (!hit) return { ok: false, reason: 'outside' };
      if (hit !== el) return { ok: false, reason: 'covered', by: state.describe(hit) };
      return { ok: true, x: px, y: py };
    },
    // Listens, in capture on the frame's window, to the mouse events of one click: a press that lands
    // on anything but the element, or outside the viewport (the page or the window changed between
    // aiming and pressing: a banner shrinking the viewport, a late layout shift), is stopped with what
    // follows it, so the page never receives a click meant for something else and the click is aimed again.
    armClick: (id): boolean => {
      state.disarmClick?.();
      const el = state.lookup(id as number);
      if (!el) return false;
      const probe: ClickProbe = { pressed: false, missed: null };
      let decided = false;
      const onEvent = (event: Event) => {
        const target = event.composedPath()[0];
        if (!decided && (event.type === 'pointerdown' || event.type === 'mousedown')) {
          decided = true;
          const node = target instanceof Node ? target : null;
          const label = node instanceof Element ? node.closest('label') : null;
          const { clientX: x, clientY: y } = event as MouseEvent;
          const inView = x >= 0 && y >= 0 && x < innerWidth && y < innerHeight;
          probe.pressed = inView && (state.contains(el, node) || (label !== null && label.control === el));
          if (!inView) probe.missed = 'a point outside the viewport';
          else if (!probe.pressed) probe.missed = node instanceof Element ? state.describe(node) : 'nothing';
        }
        if (decided && !probe.pressed) {
          event.preventDefault();
          event.stopImmediatePropagation();
        }
      };
      const types = ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click'];
      for (const type of types) window.addEventListener(type, onEvent, true);
      state.disarmClick = () => {
        for (const type of types) window.removeEventListener(type, onEvent, true);
        state.disarmClick = undefined;
        return probe;
      };
      return true;
    },
    clickOutcome: (): ClickProbe | null => state.disarmClick?.() ?? null,
    focusForType: (arg): FocusOutcome => {
      const { id, text } = arg as { id: number; text: string };
      const el = state.lookup(id);
      if (!el) return { ok: false, reason: 'stale' };
      if (disabled(el)) return { ok: false, reason: 'disabled' };
      if (el instanceof HTMLSelectElement) {
        const wanted = text.trim().toLowerCase();
        const option = [...el.options].find(
          (o) => o.label.trim().toLowerCase() === wanted || o.value.toLowerCase() === wanted,
        );
        if (!option) {
          const labels = [...el.options].map((o) => o.label.trim()).slice(0, 20);
          return { ok: false, reason: 'no_option', detail: labels.join(', ') };
        }
        el.value = option.value;
        el.dispatchEvent(new Event('input', { bubbles: true }));
        el.dispatchEvent(new Event('change', { bubbles: true }));
        return { ok: true, kind: 'select', chosen: option.label.trim() };
      }
      const textual = /^(text|search|url|tel|email|password|number|)$/;
      if (el instanceof HTMLInputElement && textual.test(el.type)) {
        if (el.readOnly) return { ok: false, reason: 'readonly' };
        el.focus();
        el.select();
        return { ok: true, kind: 'text', empty: el.value === '', password: el.type === 'password' };
      }
      if (el instanceof HTMLTextAreaElement) {
        if (el.readOnly) return { ok: false, reason: 'readonly' };
        el.focus();
        el.select();
        return { ok: true, kind: 'text', empty: el.value === '', password: false };
      }
      if (el instanceof HTMLElement && el.isContentEditable) {
        el.focus();
        const range = document.createRange();
        range.selectNodeContents(el);
        const selection = getSelection();
        selection?.removeAllRanges();
        selection?.addRange(range);
        return { ok: true, kind: 'content', empty: (el.textContent ?? '') === '', password: false };
      }
      return { ok: false, reason: 'not_editable' };
    },
    scroll: (arg) => {
      const { direction, amount } = arg as { direction: string; amount: number | null };
      const horizontal = direction === 'left' || direction === 'right';
      const step = amount ?? Math.round((horizontal ? innerWidth : innerHeight) * 0.9);
      const sign = direction === 'up' || direction === 'left' ? -1 : 1;
      const dx = horizontal ? sign * step : 0;
      const dy = horizontal ? 0 : sign * step;
      const root = document.scrollingElement ?? document.documentElement;
      const before = [root.scrollLeft, root.scrollTop];
      window.scrollBy({ left: dx, top: dy, behavior: 'instant' });
      if (root.scrollLeft !== before[0] || root.scrollTop !== before[1]) {
        return { x: root.scrollLeft, y: root.scrollTop };
      }
      // The document does not scroll: move the scrollable box under the middle of the viewport instead.
      for (let el = state.hitTest(innerWidth / 2, innerHeight / 2); el; el = el.parentElement) {
        const style = getComputedStyle(el);
        const canY = dy !== 0 && el.scrollHeight > el.clientHeight && /auto|scroll/.test(style.overflowY);
        const canX = dx !== 0 && el.scrollWidth > el.clientWidth && /auto|scroll/.test(style.overflowX);
        if (canX || canY) {
          el.scrollBy({ left: dx, top: dy, behavior: 'instant' });
          return { x: el.scrollLeft, y: el.scrollTop };
        }
      }
      return { x: root.scrollLeft, y: root.scrollTop };
    },
    viewport: () => ({ width: innerWidth, height: innerHeight }),
    images: () =>
      [...document.images].slice(0, 300).map((img) => ({
        src: (img.currentSrc || img.src).slice(0, 2000),
        alt: clean(img.alt).slice(0, 300),
        width: img.naturalWidth,
        height: img.naturalHeight,
      })),
    read: () => {
      if (!state.read) throw new Error('reader not installed');
      return { origin: location.origin, text: state.read() };
    },
    snapshot: (full) => {
      if (!state.snapshot) throw new Error('snapshot walker not installed');
      // The origin names the frame's boundary (a cross-origin iframe says where its text came from).
      const mode = full === true;
      const changes = settledChanges();
      let walk = walks.get(mode);
      if (walk?.changes !== changes) {
        walk = { changes, text: state.snapshot(mode) };
        walks.set(mode, walk);
      }
      return { origin: location.origin, text: walk.text, changes };
    },
    changes: settledChanges,
  };

  state.watch(document);
  // What changes a walk without a DOM mutation: a value or a checked box, focus (`[focused]`, styles of
  // `:focus`), the pointer (`:hover` styles), the end of a transition or an animation (text that faded
  // in), a loaded image or frame (layout), scrolling and resizing (what is off-screen), a <details>.
  for (const type of [
    'input',
    'change',
    'scroll',
    'resize',
    'toggle',
    'focusin',
    'focusout',
    'pointerover',
    'pointerout',
    'transitionend',
    'animationend',
    'load',
  ])
    addEventListener(type, bump, { capture: true, passive: true });

  g.__tabgate = state;
}
