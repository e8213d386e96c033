/**
 * The popup's decision buttons (Approve / Deny, Grant / Deny / Revoke a site, Share this tab with a
 * session) held after a list changed, by the rule in protocol/decision-hold.ts. The popup's lists share
 * one hold: a change to any of them holds every decision button, since each list's change moves the
 * lists below it. Stop agent is never held, and sits above the lists, where nothing moves it.
 */
import { HoldAfterChange } from '../../protocol/decision-hold.js';

/** The buttons held after a change: each list's decisions (`data-decision`) and the sessions' Share. */
const HELD_BUTTONS = 'button[data-decision], button[data-session-id]';

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
