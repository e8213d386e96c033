/**
 * What a screenshot paints over the page for the moment of the capture: solid boxes over secret fields
 * in every frame (in every screenshot, so a secret never leaves as pixels), and, with `annotate`, each
 * interactive element's ref of the main frame as a label at its box. Removed right after.
 *
 * A secret field is one the engine filled from the vault (whatever its kind: username, card, one-time
 * code, password), a password input, or one whose autocomplete names a secret (passwords, one-time
 * codes, card number, security code, expiry).
 */
import type { PageAgent } from './frame-worlds.js';

export interface OverlayBox {
  ref: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The label colour the annotate test looks for: a magenta no page theme is likely to use. */
export const LABEL_COLOUR = '#ff00ff';

interface OverlayArg {
  labels: { ref: string; id: number }[];
  colour: string;
}

/**
 * Adds the overlays to one frame's document (labels only in the main frame's); returns the labelled
 * boxes (viewport CSS pixels) and how many fields were masked.
 */
export function pageAddOverlays(agent: PageAgent, arg: OverlayArg): { boxes: OverlayBox[]; masked: number } {
  const host = document.createElement('div');
  host.setAttribute('data-tabgate-overlay', '');
  const root = host.attachShadow({ mode: 'closed' });
  const layer = document.createElement('div');
  layer.style.cssText = 'position:fixed;inset:0;pointer-events:none;z-index:2147483647;';
  root.appendChild(layer);
  const box = (rect: DOMRect, css: string) => {
    const el = document.createElement('div');
    el.style.cssText = `position:fixed;left:${rect.left}px;top:${rect.top}px;width:${rect.width}px;height:${rect.height}px;${css}`;
    layer.appendChild(el);
    return el;
  };
  const SECRET_HINT =
    /^(current-password|new-password|one-time-code|cc-number|cc-csc|cc-exp|cc-exp-month|cc-exp-year)$/;
  const filled = (agent as PageAgent & { vaultFilled?: WeakSet<Element> }).vaultFilled;
  let masked = 0;
  for (const field of document.querySelectorAll('input, select, textarea')) {
    const hints = (field.getAttribute('autocomplete') ?? '').toLowerCase().split(/\s+/);
    const secret =
      filled?.has(field) === true ||
      (field instanceof HTMLInputElement && field.type === 'password') ||
      hints.some((hint) => SECRET_HINT.test(hint));
    const rect = field.getBoundingClientRect();
    if (!secret || rect.width === 0 || rect.height === 0) continue;
    box(rect, 'background:#000;');
    masked++;
  }
  const boxes: OverlayBox[] = [];
  for (const { ref, id } of arg.labels) {
    const el = agent.lookup(id);
    const rect = el?.getBoundingClientRect();
    if (!rect || rect.width === 0 || rect.height === 0) continue;
    if (rect.bottom < 0 || rect.right < 0 || rect.top > innerHeight || rect.left > innerWidth) continue;
    box(rect, `outline:2px solid ${arg.colour};outline-offset:-2px;`);
    const label = document.createElement('div');
    label.textContent = ref.replace(/^@/, '');
    label.style.cssText = `position:fixed;left:${Math.max(0, rect.left)}px;top:${Math.max(0, rect.top)}px;background:${arg.colour};color:#fff;font:bold 11px/14px monospace;padding:0 3px;`;
    layer.appendChild(label);
    boxes.push({ ref, x: rect.left, y: rect.top, width: rect.width, height: rect.height });
  }
  document.documentElement.appendChild(host);
  return { boxes, masked };
}

export function pageRemoveOverlays(): void {
  for (const host of document.querySelectorAll('[data-tabgate-overlay]')) host.remove();
}

/** The element's box in page coordinates (viewport box plus scroll), after scrolling it into view. */
export function pageElementBox(
  agent: PageAgent,
  id: number,
): { x: number; y: number; width: number; height: number } | null {
  const el = agent.lookup(id);
  if (!el) return null;
  el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
  const rect = el.getBoundingClientRect();
  return { x: rect.left + scrollX, y: rect.top + scrollY, width: rect.width, height: rect.height };
}

/** The element's box in its own frame's viewport, after scrolling it into view there. */
export function pageViewportBox(
  agent: PageAgent,
  id: number,
): { x: number; y: number; width: number; height: number } | null {
  const el = agent.lookup(id);
  if (!el) return null;
  el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
  const rect = el.getBoundingClientRect();
  return { x: rect.left, y: rect.top, width: rect.width, height: rect.height };
}

/**
 * Where an iframe element draws its document: its content box in its own frame's viewport (inside the
 * border and padding), and that frame's scroll, which page coordinates of the top frame add.
 */
export function pageFrameContent(
  agent: PageAgent,
  id: number,
): { x: number; y: number; width: number; height: number; scrollX: number; scrollY: number } | null {
  const el = agent.lookup(id);
  if (!el) return null;
  el.scrollIntoView({ block: 'nearest', inline: 'nearest', behavior: 'instant' });
  const rect = el.getBoundingClientRect();
  const style = getComputedStyle(el);
  const padLeft = parseFloat(style.paddingLeft);
  const padTop = parseFloat(style.paddingTop);
  return {
    x: rect.left + el.clientLeft + padLeft,
    y: rect.top + el.clientTop + padTop,
    width: el.clientWidth - padLeft - parseFloat(style.paddingRight),
    height: el.clientHeight - padTop - parseFloat(style.paddingBottom),
    scrollX,
    scrollY,
  };
}
