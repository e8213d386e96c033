/**
 * Key definitions for `Input.dispatchKeyEvent` from the protocol's key table and single characters, so
 * pages see the same key, code and keyCode a real keyboard gives them.
 */
import { KEY_TABLE, type KeyModifier } from '../protocol/index.js';

export type Modifier = KeyModifier;

export interface KeyDefinition {
  key: string;
  code: string;
  keyCode: number;
  text?: string;
}

export const MODIFIER_BITS: Record<Modifier, number> = { Alt: 1, Control: 2, Meta: 4, Shift: 8 };

export function modifierMask(modifiers: readonly Modifier[]): number {
  return modifiers.reduce((mask, name) => mask | MODIFIER_BITS[name], 0);
}

/** Characters of the US layout's punctuation keys, for their `code`. */
const PUNCTUATION: Record<string, [string, number]> = {
  ' ': ['Space', 32],
  '-': ['Minus', 189],
  '=': ['Equal', 187],
  '+': ['Equal', 187],
  '[': ['BracketLeft', 219],
  ']': ['BracketRight', 221],
  '\\': ['Backslash', 220],
  ';': ['Semicolon', 186],
  "'": ['Quote', 222],
  ',': ['Comma', 188],
  '.': ['Period', 190],
  '/': ['Slash', 191],
  '`': ['Backquote', 192],
};

export function keyDefinition(key: string, modifiers: readonly Modifier[]): KeyDefinition {
  const spec = KEY_TABLE[key];
  if (spec) {
    const [code, keyCode, text] = spec;
    return { key: key === 'Space' ? ' ' : key, code, keyCode, ...(text ? { text } : {}) };
  }
  const shortcut = modifiers.some((m) => m === 'Control' || m === 'Alt' || m === 'Meta');
  // A letter in a shortcut names the key (`Control+A` is the A key, as on a keyboard): its value is
  // lowercase unless Shift is held.
  let value = key;
  if (/^[a-z]$/i.test(key))
    value = modifiers.includes('Shift') ? key.toUpperCase() : shortcut ? key.toLowerCase() : key;
  const upper = value.toUpperCase();
  let code = '';
  let keyCode = 0;
  if (/^[A-Z]$/.test(upper)) {
    code = `Key${upper}`;
    keyCode = upper.charCodeAt(0);
  } else if (/^[0-9]$/.test(value)) {
    code = `Digit${value}`;
    keyCode = value.charCodeAt(0);
  } else {
    [code, keyCode] = PUNCTUATION[value] ?? ['', 0];
  }
  // With Control, Alt or Meta held the key is a shortcut, not text.
  return { key: value, code, keyCode, ...(shortcut ? {} : { text: value }) };
}
