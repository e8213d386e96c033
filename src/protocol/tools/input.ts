import { z } from 'zod';
import { SECRET_NAME_PATTERN } from '../secret-fill.js';
import { defineTool } from './define.js';

/** A ref as written in snapshots (`@e12`); the leading `@` is optional. */
export const refSchema = z
  .string()
  .regex(/^@?[A-Za-z][A-Za-z0-9_-]{0,63}$/, 'expected a ref from browser_snapshot, like @e12')
  .describe('Ref from the latest snapshot, e.g. @e12');

export const NAMED_KEYS = [
  'Enter',
  'Tab',
  'Escape',
  'Backspace',
  'Delete',
  'ArrowUp',
  'ArrowDown',
  'ArrowLeft',
  'ArrowRight',
  'Home',
  'End',
  'PageUp',
  'PageDown',
  'Space',
] as const;

export const KEY_MODIFIERS = ['Alt', 'Control', 'Meta', 'Shift'] as const;

const singleCharacter = z
  .string()
  .refine((value) => [...value].length === 1, 'expected a named key or a single character');

export const browserClick = defineTool({
  name: 'browser_click',
  title: 'Click',
  description: 'Click the element with this ref (a real, trusted mouse click; scrolls it into view first).',
  input: z.strictObject({ ref: refSchema }),
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
});

export const browserType = defineTool({
  name: 'browser_type',
  title: 'Type into a field',
  description:
    'Replace the content of the field with this ref by text, or by the vault secret named secret (its value is never shown). submit presses Enter afterwards.',
  input: z
    .strictObject({
      ref: refSchema,
      text: z.string().max(100_000).optional(),
      secret: z
        .string()
        .regex(SECRET_NAME_PATTERN, 'expected the name of a vault secret (`tabgate secrets list`)')
        .optional()
        .describe('Name of a vault secret to fill instead of text; it fills only on its own origin'),
      submit: z.boolean().optional(),
    })
    .refine((args) => (args.text === undefined) !== (args.secret === undefined), {
      message: 'give exactly one of text or secret',
    }),
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
});

export const browserPress = defineTool({
  name: 'browser_press',
  title: 'Press a key',
  description: `Press a key in the focused element: ${NAMED_KEYS.join(', ')}, or one character; modifiers hold keys down.`,
  input: z.strictObject({
    key: z.union([z.enum(NAMED_KEYS), singleCharacter]),
    modifiers: z.array(z.enum(KEY_MODIFIERS)).max(4).optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
});

export const SCROLL_DIRECTIONS = ['up', 'down', 'left', 'right'] as const;

export const browserScroll = defineTool({
  name: 'browser_scroll',
  title: 'Scroll',
  description: 'Scroll the page one screen (or amount pixels) in a direction, to reveal more content.',
  input: z.strictObject({
    direction: z.enum(SCROLL_DIRECTIONS),
    amount: z.number().int().min(1).max(100_000).optional().describe('Pixels'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
});
