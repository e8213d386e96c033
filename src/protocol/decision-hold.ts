/**
 * The hold on a button that decides something (Approve / Deny, Grant / Revoke a site, Share a tab,
 * approve a pairing), one rule for the extension's popup and the dashboard alike. The agent decides
 * when an approval, a site request or a session appears, and any local process when a pairing request
 * does, so it could make one arrive just as the person reaches for a button: the list shifts, and the
 * press lands on another decision than the one they read (browsers hold a permission prompt's buttons
 * for a moment after it appears, for the same reason). After each change to a list its decision buttons
 * are held until the list has been still for HOLD_MS: a held button is `aria-disabled`, and a pointer's
 * press on it does nothing. A key press still counts: focus stays on the element it was on wherever the
 * list moves it (and a disabled button would drop a keyboard user's focus).
 */

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
