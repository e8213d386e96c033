/**
 * Trusted input: every click, keystroke and text insertion goes through CDP `Input.*` on the page's
 * session, so the page sees `isTrusted === true`. A click first scrolls its element into view, finds the
 * point in the top-level viewport through every iframe above it, and refuses when something else covers
 * that point (naming it) instead of clicking the wrong thing. Where the press really lands is checked as
 * it lands: one that meets something else (the page moved after aiming) never reaches the page, and the
 * click is aimed again.
 */
import { TabgateError } from '../protocol/index.js';
import type { ClickProbe, FocusOutcome, ResolveOutcome } from './page/agent-state.js';
import { staleError } from './frame-worlds.js';
import { keyDefinition, MODIFIER_BITS, modifierMask, type Modifier } from './keys.js';
import { KEY_TABLE, type MOUSE_BUTTONS } from '../protocol/index.js';
import type { RefBinding } from './refs.js';
import { pageTurn, settleTakenOver, type SubmitWatch } from './submit-watch.js';
import type { Tab } from './tab.js';

export function bindingOf(tab: Tab, ref: string): RefBinding {
  const binding = tab.refs.lookup(ref);
  if (!binding) {
    throw new TabgateError(
      'stale_ref',
      `${ref} is not a ref of the current page of this tab (it may come from an older snapshot, another tab or a page that has since navigated). Take a new browser_snapshot.`,
    );
  }
  for (const node of [...binding.ancestors, binding]) {
    if (!node.worlds.isAlive(node.contextId)) throw staleError();
  }
  return binding;
}

function failure(ref: string, outcome: Exclude<ResolveOutcome, { ok: true }>): TabgateError {
  switch (outcome.reason) {
    case 'stale':
      return staleError();
    case 'covered':
      return new TabgateError(
        'element_covered',
        `${ref} is covered by ${outcome.by}; that element would receive the click.`,
        {
          covered_by: outcome.by,
        },
      );
    case 'disabled':
      return new TabgateError('element_not_interactable', `${ref} is disabled.`);
    case 'hidden':
      return new TabgateError('element_not_interactable', `${ref} has no visible box (hidden or zero size).`);
    case 'outside':
      return new TabgateError('element_not_interactable', `${ref} cannot be scrolled into the visible area.`);
  }
}

/** The click point of a ref in top-level viewport coordinates. */
export async function clickPoint(tab: Tab, ref: string): Promise<{ x: number; y: number }> {
  const binding = bindingOf(tab, ref);
  for (const frame of binding.ancestors) {
    const ok = await frame.worlds.run<boolean>(frame.contextId, 'scrollIntoView', frame.localId);
    if (!ok) throw staleError();
  }
  const own = await binding.worlds.run<ResolveOutcome>(binding.contextId, 'resolve', binding.localId);
  if (!own.ok) throw failure(ref, own);
  let point = { x: own.x, y: own.y };
  for (const frame of [...binding.ancestors].reverse()) {
    const outer = await frame.worlds.run<ResolveOutcome>(frame.contextId, 'frameOffset', {
      id: frame.localId,
      ...point,
    });
    if (!outer.ok) throw failure(ref, outer);
    point = { x: outer.x, y: outer.y };
  }
  return point;
}

/** Attempts at a click whose press met something else because the page moved after aiming. */
const CLICK_ATTEMPTS = 3;

export interface ClickOptions {
  button?: (typeof MOUSE_BUTTONS)[number];
  double?: boolean;
  modifiers?: readonly Modifier[];
}

const BUTTON_BITS = { left: 1, right: 2, middle: 4 } as const;

export async function click(tab: Tab, ref: string, options: ClickOptions = {}): Promise<void> {
  const button = options.button ?? 'left';
  const modifiers = modifierMask(options.modifiers ?? []);
  const presses = options.double ? 2 : 1;
  for (let attempt = 1; ; attempt++) {
    const { x, y } = await clickPoint(tab, ref);
    const binding = bindingOf(tab, ref);
    if (!(await binding.worlds.run<boolean>(binding.contextId, 'armClick', binding.localId)))
      throw staleError();
    const press = async () => {
      await tab.page.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y, modifiers });
      for (let clickCount = 1; clickCount <= presses; clickCount++) {
        const base = { x, y, button, clickCount, modifiers };
        await tab.page.send('Input.dispatchMouseEvent', {
          ...base,
          type: 'mousePressed',
          buttons: BUTTON_BITS[button],
        });
        await tab.page.send('Input.dispatchMouseEvent', { ...base, type: 'mouseReleased', buttons: 0 });
      }
      return true;
    };
    const disarm = () =>
      binding.worlds.run<ClickProbe | null>(binding.contextId, 'clickOutcome').catch(() => null);
    let landed: boolean;
    try {
      // A dialog the click opened blocks the page: the input is acknowledged only once it is answered.
      landed = await tab.dialogs.unlessDialog(press(), false);
    } catch (error) {
      await disarm();
      throw error;
    }
    // Then the probe stays armed until the next click disarms it: it decided on this press and stops nothing.
    if (!landed) return;
    const probe = await disarm();
    // Aimed again only after a press the probe saw land elsewhere and stopped. Done when the press
    // reached the element, clicked or not (a select opens its list on the press); when the probe is
    // gone with its document (the click navigated) or blocked by a dialog the click opened; and when it
    // saw nothing, because a page listener stopped the events before it: then the page may have had
    // them, and a second click could repeat what the first did.
    if (!probe || probe.pressed || probe.missed === null) return;
    if (attempt === CLICK_ATTEMPTS) {
      throw new TabgateError(
        'element_covered',
        `${ref} moved or was covered each time it was clicked; last time the press met ${probe.missed}.`,
        { covered_by: probe.missed },
      );
    }
  }
}

/** Replaces the field's content with `text` (select all, then insert), like a person would. */
export async function typeInto(tab: Tab, ref: string, text: string): Promise<void> {
  const binding = bindingOf(tab, ref);
  const outcome = await binding.worlds.run<FocusOutcome>(binding.contextId, 'focusForType', {
    id: binding.localId,
    text,
  });
  if (!outcome.ok) {
    if (outcome.reason === 'stale') throw staleError();
    const why: Record<typeof outcome.reason, string> = {
      disabled: `${ref} is disabled.`,
      readonly: `${ref} is read-only.`,
      not_editable: `${ref} is not a text field; use browser_click for buttons, checkboxes and links.`,
      no_option: `${ref} has no option with that label or value. Options: ${outcome.detail ?? ''}`,
    };
    throw new TabgateError('element_not_interactable', why[outcome.reason]);
  }
  if (outcome.kind === 'select') return;
  if (text === '') {
    if (!outcome.empty) await pressKey(tab, 'Delete', []);
    return;
  }
  await tab.page.send('Input.insertText', { text });
}

export async function pressKey(tab: Tab, key: string, modifiers: readonly Modifier[]): Promise<void> {
  const definition = keyDefinition(key, modifiers);
  // Sent back to back and awaited together: the browser queues input events of one page in the order
  // they came, so a combination costs one round trip instead of one per event.
  const sent: Promise<unknown>[] = [];
  const send = (params: object) => sent.push(tab.page.send('Input.dispatchKeyEvent', params));
  let mask = 0;
  const modifierEvent = (name: Modifier, type: 'rawKeyDown' | 'keyUp') => {
    const [code, keyCode] = KEY_TABLE[name] ?? ['', 0];
    send({ type, key: name, code, windowsVirtualKeyCode: keyCode, modifiers: mask });
  };
  for (const name of modifiers) {
    mask |= MODIFIER_BITS[name];
    modifierEvent(name, 'rawKeyDown');
  }
  const common = {
    key: definition.key,
    code: definition.code,
    windowsVirtualKeyCode: definition.keyCode,
    nativeVirtualKeyCode: definition.keyCode,
    modifiers: mask,
  };
  send({
    ...common,
    type: definition.text ? 'keyDown' : 'rawKeyDown',
    ...(definition.text ? { text: definition.text, unmodifiedText: definition.text } : {}),
  });
  send({ ...common, type: 'keyUp' });
  for (const name of [...modifiers].reverse()) {
    mask &= ~MODIFIER_BITS[name];
    modifierEvent(name, 'keyUp');
  }
  await Promise.all(sent);
}

/** A page that took a submission over is waited for this long at most: it may poll for ever. */
const TAKEN_OVER_MAX_MS = 5_000;
/** How long a page that asked to navigate may hold its thread before its turn comes. */
const PAGE_TURN_MAX_MS = 10_000;

/**
 * After an input that may navigate (a click, Enter), wait for a navigation it started to finish loading.
 * With a `watch` begun before the input (submit-watch.ts), a form submission the input made is not a
 * guess: the browser's own is waited for until its navigation commits (or ends without a document: a
 * download, a refusal), within the call's time; one the page took over, until the page asks to navigate
 * or has nothing left that could (submit-watch.ts).
 */
export async function settleAfterInput(tab: Tab, timeoutMs: number, watch?: SubmitWatch): Promise<void> {
  const before = watch?.navigations ?? tab.navigations;
  const requested = watch?.requested ?? tab.requestedNavigations;
  const submitted = watch ? await watch.outcome() : 'none';
  if (submitted === 'native' && watch) {
    // Committed; or a load began and ended without a document (a download); or the guard refused it.
    await tab.waitUntil(
      () =>
        tab.navigations !== before ||
        (tab.loadsStarted !== watch.loadsStarted && !tab.loading) ||
        tab.refusedNavigations !== watch.refused,
      timeoutMs,
    );
  } else if (submitted === 'taken' && watch) {
    const moved = () => tab.loading || tab.navigations !== before || tab.requestedNavigations !== requested;
    await settleTakenOver(tab, watch, Math.min(timeoutMs, TAKEN_OVER_MAX_MS), moved);
  } else await new Promise((resolve) => setTimeout(resolve, 25));
  if (!tab.loading && tab.navigations === before) {
    if (tab.requestedNavigations === requested) return;
    // The page asked to navigate (a form's Enter, a link) but has not started loading yet: a busy page
    // issues the navigation from a task of its own (seen on a loaded CI host: the next read showed the
    // form, not its answer). Its turn tells: once a task posted now has run, a navigation not started
    // was dropped (the page cancelled it). Bounded, as a page may hold its thread for ever.
    const started = () => tab.loading || tab.navigations !== before;
    let turned = false;
    void pageTurn(tab).then(() => {
      turned = true;
      tab.recheck();
    });
    await tab.waitUntil(() => started() || turned, Math.min(timeoutMs, PAGE_TURN_MAX_MS));
    if (!started()) return;
  }
  await tab.waitUntil(() => !tab.loading, Math.min(timeoutMs, 10_000));
}
