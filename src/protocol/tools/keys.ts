/**
 * Key names of the DOM `KeyboardEvent.key` set (UI Events, "Key values") that a page can receive, with
 * the physical `code` and Windows virtual key code a real keyboard sends with each, and the parser of
 * combinations as people write them (`Control+A`, `Shift+Tab`, `Meta+Shift+K`). One table, used by the
 * schema to validate and by the engine to dispatch.
 */
export const KEY_MODIFIERS = ['Alt', 'Control', 'Meta', 'Shift'] as const;
export type KeyModifier = (typeof KEY_MODIFIERS)[number];

/** `[code, keyCode, text]`: an empty code where no physical key has one; keyCode 0 where Windows has none. */
type KeySpec = readonly [code: string, keyCode: number, text?: string];

const same = (keyCode: number): KeySpec => ['', keyCode];

const FUNCTION_KEYS = Object.fromEntries(
  Array.from({ length: 24 }, (_, i) => [`F${i + 1}`, [`F${i + 1}`, 112 + i] as KeySpec]),
);

/** Keys whose `code` is their own name, with their Windows virtual key code. */
const SELF_CODED: Record<string, number> = {
  Tab: 9,
  Escape: 27,
  Backspace: 8,
  Delete: 46,
  Insert: 45,
  ArrowUp: 38,
  ArrowDown: 40,
  ArrowLeft: 37,
  ArrowRight: 39,
  Home: 36,
  End: 35,
  PageUp: 33,
  PageDown: 34,
  ContextMenu: 93,
  Pause: 19,
  PrintScreen: 44,
  CapsLock: 20,
  NumLock: 144,
  ScrollLock: 145,
  Help: 47,
  Select: 41,
  Again: 0,
  Props: 0,
  Undo: 0,
  Copy: 0,
  Cut: 0,
  Paste: 0,
  Find: 0,
  Open: 0,
  Convert: 28,
  NonConvert: 29,
  KanaMode: 21,
  AudioVolumeMute: 173,
  AudioVolumeDown: 174,
  AudioVolumeUp: 175,
  MediaTrackNext: 176,
  MediaTrackPrevious: 177,
  MediaStop: 178,
  MediaPlayPause: 179,
  LaunchMail: 180,
  MediaSelect: 181,
  LaunchApp1: 182,
  LaunchApp2: 183,
  BrowserBack: 166,
  BrowserForward: 167,
  BrowserRefresh: 168,
  BrowserStop: 169,
  BrowserSearch: 170,
  BrowserFavorites: 171,
  BrowserHome: 172,
  Eject: 0,
  Power: 0,
  WakeUp: 0,
};

export const KEY_TABLE: Readonly<Record<string, KeySpec>> = {
  ...Object.fromEntries(Object.entries(SELF_CODED).map(([name, keyCode]) => [name, [name, keyCode]])),
  ...FUNCTION_KEYS,
  Enter: ['Enter', 13, '\r'],
  // `Space` is how people write it; the DOM key value is ' '.
  Space: ['Space', 32, ' '],
  Alt: ['AltLeft', 18],
  Control: ['ControlLeft', 17],
  Meta: ['MetaLeft', 91],
  Shift: ['ShiftLeft', 16],
  AltGraph: ['AltRight', 225],
  Clear: same(12),
  Accept: same(30),
  Cancel: same(3),
  Execute: same(43),
  Attn: same(246),
  CrSel: same(247),
  ExSel: same(248),
  EraseEof: same(249),
  Play: same(250),
  ZoomToggle: same(251),
  Redo: same(0),
  ZoomIn: same(0),
  ZoomOut: same(0),
  MediaPlay: same(0),
  MediaPause: same(0),
  MediaRecord: same(0),
  MediaFastForward: same(0),
  MediaRewind: same(0),
  BrightnessUp: same(0),
  BrightnessDown: same(0),
  LogOff: same(0),
  PowerOff: same(0),
  Hibernate: same(0),
  Standby: same(0),
};

/** Names as people write them for the modifiers and a few keys. */
const ALIASES: Record<string, string> = {
  ctrl: 'Control',
  control: 'Control',
  cmd: 'Meta',
  command: 'Meta',
  meta: 'Meta',
  super: 'Meta',
  win: 'Meta',
  option: 'Alt',
  alt: 'Alt',
  shift: 'Shift',
  esc: 'Escape',
  del: 'Delete',
  ins: 'Insert',
  return: 'Enter',
  up: 'ArrowUp',
  down: 'ArrowDown',
  left: 'ArrowLeft',
  right: 'ArrowRight',
  pgup: 'PageUp',
  pgdn: 'PageDown',
  plus: '+',
  ' ': 'Space',
};

const BY_LOWER = new Map(Object.keys(KEY_TABLE).map((name) => [name.toLowerCase(), name]));

export interface KeyCombo {
  /** A name of `KEY_TABLE`, or one character. */
  key: string;
  modifiers: KeyModifier[];
}

/** The key's canonical name (`f2` → `F2`, `Esc` → `Escape`), one character as it is, else null. */
export function canonicalKey(raw: string): string | null {
  if ([...raw].length === 1) return ALIASES[raw] ?? raw;
  const lower = raw.toLowerCase();
  const aliased = ALIASES[lower];
  if (aliased) return aliased;
  return BY_LOWER.get(lower) ?? null;
}

const isModifier = (name: string): name is KeyModifier => (KEY_MODIFIERS as readonly string[]).includes(name);

/**
 * `Control+A`, `Shift+Tab`, `Meta+Shift+K`, `Control++` (the plus key): modifiers first, the key last.
 * A lone modifier (`Shift`) is a key of its own. Null when a part is no key.
 */
export function parseKeyCombo(text: string): KeyCombo | null {
  if (text.length === 0 || text.length > 64) return null;
  const parts =
    text === '+' ? ['+'] : text.endsWith('++') ? [...text.slice(0, -2).split('+'), '+'] : text.split('+');
  const keyPart = parts.pop();
  if (keyPart === undefined || keyPart === '') return null;
  const modifiers: KeyModifier[] = [];
  for (const part of parts) {
    const name = canonicalKey(part.trim());
    if (!name || !isModifier(name)) return null;
    if (!modifiers.includes(name)) modifiers.push(name);
  }
  const key = canonicalKey(keyPart.length > 1 ? keyPart.trim() : keyPart);
  return key ? { key, modifiers } : null;
}
