/**
 * Key definitions for `Input.dispatchKeyEvent`: the named keys of the catalog and single characters,
 * so pages see the same key, code and keyCode a real keyboard gives them.
 */
import type { KEY_MODIFIERS } from '../protocol/index.js';

export type Modifier = (typeof KEY_MODIFIERS)[number];

export interface KeyDefinition {
  key: string;
  code: string;
  keyCode: number;
  text?: string;
}

const NAMED: Record<string, KeyDefinition> = {
  Enter: { key: 'Enter', code: 'Enter', keyCode: 13, text: '\r' },
  Tab: { key: 'Tab', code: 'Tab', keyCode: 9 },
  Escape: { key: 'Escape', code: 'Escape', keyCode: 27 },
  Backspace: { key: 'Backspace', code: 'Backspace', keyCode: 8 },
  Delete: { key: 'Delete', code: 'Delete', keyCode: 46 },
  ArrowUp: { key: 'ArrowUp', code: 'ArrowUp', keyCode: 38 },
  ArrowDown: { key: 'ArrowDown', code: 'ArrowDown', keyCode: 40 },
  ArrowLeft: { key: 'ArrowLeft', code: 'ArrowLeft', keyCode: 37 },
  ArrowRight: { key: 'ArrowRight', code: 'ArrowRight', keyCode: 39 },
  Home: { key: 'Home', code: 'Home', keyCode: 36 },
  End: { key: 'End', code: 'End', keyCode: 35 },
  PageUp: { key: 'PageUp', code: 'PageUp', keyCode: 33 },
  PageDown: { key: 'PageDown', code: 'PageDown', keyCode: 34 },
  Space: { key: ' ', code: 'Space', keyCode: 32, text: ' ' },
};

export const MODIFIER_KEYS: Record<Modifier, KeyDefinition & { bit: number }> = {
  Alt: { key: 'Alt', code: 'AltLeft', keyCode: 18, bit: 1 },
  Control: { key: 'Control', code: 'ControlLeft', keyCode: 17, bit: 2 },
  Meta: { key: 'Meta', code: 'MetaLeft', keyCode: 91, bit: 4 },
  Shift: { key: 'Shift', code: 'ShiftLeft', keyCode: 16, bit: 8 },
};

export function keyDefinition(key: string, modifiers: readonly Modifier[]): KeyDefinition {
  const named = NAMED[key];
  if (named) return named;
  const shifted = modifiers.includes('Shift') && /^[a-z]$/.test(key) ? key.toUpperCase() : key;
  const upper = shifted.toUpperCase();
  let code = '';
  let keyCode = 0;
  if (/^[A-Z]$/.test(upper)) {
    code = `Key${upper}`;
    keyCode = upper.charCodeAt(0);
  } else if (/^[0-9]$/.test(shifted)) {
    code = `Digit${shifted}`;
    keyCode = shifted.charCodeAt(0);
  }
  // With Control, Alt or Meta held the key is a shortcut, not text.
  const typesText = !modifiers.some((m) => m === 'Control' || m === 'Alt' || m === 'Meta');
  return { key: shifted, code, keyCode, ...(typesText ? { text: shifted } : {}) };
}
