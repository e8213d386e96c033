/**
 * The dashboard's decision buttons (Approve / Deny an approval or a pairing request, Revoke a browser)
 * held a moment after the list they are in changed, by the rule in protocol/decision-hold.ts: the agent
 * decides when an approval appears, and any local process when a pairing request does. The extension's
 * popup holds its buttons by the same rule.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { HoldAfterChange } from '../protocol/decision-hold.js';

/** What a list's decision buttons need from its hold: whether to draw them held, and their press. */
export interface HeldButtons {
  /** The `aria-disabled` a button carries: 'true' while held. */
  readonly attribute: 'true' | undefined;
  /** A click handler that does `act` unless the press is a pointer's on a held button. */
  press(act: () => unknown): (event: MouseEvent) => void;
}

/** The buttons of a list drawn from `hold`, judged now; a press is judged when it comes. */
export function heldButtons(hold: HoldAfterChange): HeldButtons {
  return {
    attribute: hold.remaining() > 0 ? 'true' : undefined,
    press: (act) => (event) => {
      if (!hold.ignores(event)) void act();
    },
  };
}

/**
 * The hold of a list whose content is `key` (what it shows, in order): held for HOLD_MS after `key`
 * last changed, and after the first draw. Judged while drawing, so the draw that brings a new row
 * already has its buttons held, and drawn again once the hold is over.
 */
export function useHeldAfterChange(key: string): HeldButtons {
  const state = useRef<{ key: string; hold: HoldAfterChange } | null>(null);
  if (state.current?.key !== key) {
    const hold = state.current?.hold ?? new HoldAfterChange(() => performance.now());
    hold.changed();
    state.current = { key, hold };
  }
  const [draws, redraw] = useState(0);
  const left = state.current.hold.remaining();
  useEffect(() => {
    if (left <= 0) return;
    // A timer that fires a hair early finds the buttons still held, and sets another.
    const timer = setTimeout(() => redraw((n) => n + 1), left);
    return () => clearTimeout(timer);
  }, [key, left > 0, draws]);
  return heldButtons(state.current.hold);
}
