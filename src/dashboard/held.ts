/**
 * Decision buttons held still for a moment after the list they are in changed. The agent decides when an
 * approval appears, and any local process when a pairing request does; one arriving as the owner reaches
 * for a button shifts the list, and the press would land on another decision than the one they read
 * (browsers hold a permission prompt's buttons for a moment after it appears, for the same reason). A
 * held button is `aria-disabled` and ignores a pointer's press; a key press still counts, since focus
 * stays on its element wherever the list moves it (and a disabled button would drop the focus). The
 * extension's popup holds its buttons the same way.
 */
import { useEffect, useRef, useState } from 'preact/hooks';

export const HOLD_MS = 500;

/**
 * True for HOLD_MS after `key` (what the list shows, in order) last changed, and after the first draw.
 * Judged while drawing, so the draw that brings a new row already has its buttons held.
 */
export function useHeldAfterChange(key: string): boolean {
  const changed = useRef<{ key: string; at: number } | null>(null);
  const [draws, redraw] = useState(0);
  const now = performance.now();
  if (changed.current?.key !== key) changed.current = { key, at: now };
  const left = changed.current.at + HOLD_MS - now;
  const held = left > 0;
  useEffect(() => {
    if (!held) return;
    // A timer that fires a hair early finds the buttons still held, and sets another.
    const timer = setTimeout(() => redraw((n) => n + 1), left);
    return () => clearTimeout(timer);
  }, [key, held, draws]);
  return held;
}

/** A click handler that does `act` unless the button is held and a pointer pressed it (a key press has `detail` 0). */
export const unlessHeld =
  (held: boolean, act: () => unknown) =>
  (event: MouseEvent): void => {
    if (held && event.detail !== 0) return;
    void act();
  };

/** The attribute a held button carries. */
export const heldAttribute = (held: boolean): 'true' | undefined => (held ? 'true' : undefined);
