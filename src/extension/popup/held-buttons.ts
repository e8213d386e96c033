/**
 * A button that decides something (Approve / Deny, Grant / Deny / Revoke a site, Share this tab with a
 * session) answers only once the lists around it have held still for a moment. The agent decides when
 * an approval, a site request or a session appears, so it could make one arrive just as the person
 * reaches for a button: the list shifts, and the press lands on another decision than the one they read
 * (browsers hold a permission prompt's buttons for a moment after it appears, for the same reason). Each
 * change to a list marks every such button `aria-disabled` until the lists have been still for HOLD_MS,
 * and a pointer's press on one meanwhile does nothing. A key press still counts: focus stays on the
 * element it was on wherever the list moves it, and a disabled button would drop the keyboard user's
 * focus. Stop agent is never held, and sits above the lists, where nothing moves it.
 */

/** The buttons held after a change: each list's decisions (`data-decision`) and the sessions' Share. */
export const HELD_BUTTONS = 'button[data-decision], button[data-session-id]';
export const HOLD_MS = 500;

/** When the buttons may answer again; pure, so the rule is tested with a clock of the test's own. */
export class HoldAfterChange {
  private until = -Infinity;

  constructor(
    private readonly now: () => number,
    private readonly holdMs = HOLD_MS,
  ) {}

  /** A list changed: held for the whole hold from now, however recently the last change was. */
  changed(): void {
    this.until = this.now() + this.holdMs;
  }

  /** Milliseconds left before a press counts; 0 when it counts now. */
  remaining(): number {
    return Math.max(0, this.until - this.now());
  }

  /** Whether a click is a pointer's press to ignore now: a key press (`detail` 0) always counts. */
  ignores(click: { detail: number }): boolean {
    return click.detail !== 0 && this.remaining() > 0;
  }
}

const hold = new HoldAfterChange(() => performance.now());
let release: ReturnType<typeof setTimeout> | undefined;

function setHeld(held: boolean): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>(HELD_BUTTONS)) {
    if (held) button.setAttribute('aria-disabled', 'true');
    else button.removeAttribute('aria-disabled');
  }
}

/** Whether a click on a held button is a pointer's press to ignore. */
export function heldPress(event: MouseEvent): boolean {
  return hold.ignores(event);
}

/** A list was drawn anew: its buttons and every other list's wait until all have been still a moment. */
export function listsChanged(): void {
  hold.changed();
  setHeld(true);
  clearTimeout(release);
  const check = (): void => {
    const left = hold.remaining();
    if (left > 0) release = setTimeout(check, left);
    else setHeld(false);
  };
  release = setTimeout(check, hold.remaining());
}
