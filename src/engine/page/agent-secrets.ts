/**
 * The page side of a vault fill. Runs in our isolated world, so the page's own scripts can neither see
 * these commands nor change what `self.origin` or an element's type read here. `secretField` decides,
 * in one synchronous step, whether the element may take the secret (its frame's origin, its kind) and
 * focuses it; `secretFilled` marks it so the snapshot never shows its value. Self-contained (serialised).
 */
import type { AgentState } from './agent-state.js';

export type SecretFieldOutcome =
  | { ok: true }
  | {
      ok: false;
      reason: 'stale' | 'disabled' | 'readonly' | 'origin' | 'field';
      /** What was found instead: the frame's origin, or the field's kind. Never a value. */
      found?: string;
    };

export function installSecretFill(): void {
  const g = globalThis as unknown as { __tabgate?: AgentState };
  const state = g.__tabgate;
  if (!state || state.extraCommands.secretField) return;

  // The autocomplete field names that say what a field is for (WHATWG autofill), besides section and
  // shipping/billing/contact tokens, which say nothing about the kind.
  const PASSWORD = new Set(['current-password', 'new-password']);
  const KNOWN = new Set([
    ...PASSWORD,
    'username',
    'email',
    'tel',
    'one-time-code',
    'cc-number',
    'cc-csc',
    'cc-exp',
    'cc-exp-month',
    'cc-exp-year',
    'cc-name',
    'name',
    'given-name',
    'family-name',
    'street-address',
    'address-line1',
    'postal-code',
    'country',
    'organization',
    'url',
  ]);
  const hintOf = (input: HTMLInputElement): string | null => {
    const tokens = (input.getAttribute('autocomplete') ?? '').toLowerCase().split(/\s+/);
    return tokens.find((token) => KNOWN.has(token)) ?? null;
  };
  // Which input types and autocomplete hints each kind of secret may go into.
  const fits = (field: string, type: string, hint: string | null): boolean => {
    switch (field) {
      case 'password':
        return (
          (type === 'password' && (hint === null || PASSWORD.has(hint))) ||
          (type === 'text' && hint !== null && PASSWORD.has(hint))
        );
      case 'username':
        return /^(text|email|tel)$/.test(type) && (hint === null || /^(username|email|tel)$/.test(hint));
      case 'otp':
        return /^(text|tel|number|password)$/.test(type) && (hint === null || hint === 'one-time-code');
      case 'card':
        return /^(text|tel|number)$/.test(type) && (hint === null || hint === 'cc-number');
      default:
        return false;
    }
  };
  const kindOf = (el: Element): string => {
    if (!(el instanceof HTMLInputElement)) return el.tagName.toLowerCase();
    const hint = hintOf(el);
    return `input type=${el.type}${hint ? ` autocomplete=${hint}` : ''}`;
  };

  state.extraCommands.secretField = (arg): SecretFieldOutcome => {
    const { id, origin, field } = arg as { id: number; origin: string; field: string };
    const el = state.lookup(id);
    if (!el) return { ok: false, reason: 'stale' };
    // The frame's own origin, not the tab's: an iframe of another site never gets the secret.
    if (self.origin !== origin) return { ok: false, reason: 'origin', found: self.origin };
    if (!(el instanceof HTMLInputElement) || !fits(field, el.type, hintOf(el)))
      return { ok: false, reason: 'field', found: kindOf(el) };
    if (el.disabled) return { ok: false, reason: 'disabled' };
    if (el.readOnly) return { ok: false, reason: 'readonly' };
    el.focus();
    el.select();
    return document.activeElement === el
      ? { ok: true }
      : { ok: false, reason: 'field', found: 'unfocusable' };
  };
  // Just before the text goes in: the element still has the focus of its document.
  state.extraCommands.secretStillFocused = (id) => {
    const el = state.lookup(id as number);
    return el !== null && document.activeElement === el && document.hasFocus();
  };
  state.extraCommands.secretFilled = (id) => {
    const el = state.lookup(id as number);
    if (!el) return false;
    state.vaultFilled.add(el);
    return (el as HTMLInputElement).value !== '';
  };
}
