import { z } from 'zod';
import { SECRET_NAME_PATTERN } from '../secret-fill.js';
import { approvalWaitSchema } from './approvals.js';
import { defineTool } from './define.js';
import { clickResultSchema, pressResultSchema, scrollResultSchema, typeResultSchema } from './results.js';
import { KEY_MODIFIERS, parseKeyCombo } from './keys.js';

/**
 * A ref as written in snapshots (`@e12`); the leading `@` is optional. Checked by a refinement, not a
 * JSON Schema pattern: the ref appears in a dozen tools and the pattern would cost every tool list.
 */
const REF_PATTERN = /^@?[A-Za-z][A-Za-z0-9_-]{0,63}$/;
export const refSchema = z
  .string()
  .refine((value) => REF_PATTERN.test(value), 'expected a ref from browser_snapshot, like @e12');

export const MOUSE_BUTTONS = ['left', 'right', 'middle'] as const;

export const keyModifiersSchema = z.array(z.enum(KEY_MODIFIERS)).max(4);

/** One key, or a combination as people write it; what is valid is named in the message. */
const keyComboSchema = z
  .string()
  .refine(
    (value) => parseKeyCombo(value) !== null,
    'expected a KeyboardEvent.key name (Enter, F2, PageDown, ContextMenu, …), one character, or a combination like Control+A or Shift+Tab',
  );

export const browserClick = defineTool({
  name: 'browser_click',
  title: 'Click',
  description: 'Click the element with this ref (a real, trusted mouse click; scrolls it into view first).',
  input: z.strictObject({
    ref: refSchema,
    button: z.enum(MOUSE_BUTTONS).optional(),
    double: z.boolean().optional(),
    modifiers: keyModifiersSchema.optional(),
    wait: approvalWaitSchema,
  }),
  result: clickResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
});

export const browserType = defineTool({
  name: 'browser_type',
  title: 'Type into a field',
  description:
    "Replace the field's content by text, or by the named vault secret (never shown). submit presses Enter.",
  input: z
    .strictObject({
      ref: refSchema,
      text: z.string().max(100_000).optional(),
      secret: z
        .string()
        .regex(SECRET_NAME_PATTERN, 'expected the name of a vault secret (`tabgate secrets list`)')
        .optional()
        .describe('Vault secret name, instead of text'),
      submit: z.boolean().optional(),
      wait: approvalWaitSchema,
    })
    .refine((args) => (args.text === undefined) !== (args.secret === undefined), {
      message: 'give exactly one of text or secret',
    }),
  result: typeResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
});

export const browserPress = defineTool({
  name: 'browser_press',
  title: 'Press a key',
  description:
    'Press a key in the focused element: any KeyboardEvent.key name (Enter, F2, PageDown…), one character, or a combo like Control+A.',
  input: z.strictObject({
    key: keyComboSchema,
    modifiers: keyModifiersSchema.optional(),
    wait: approvalWaitSchema,
  }),
  result: pressResultSchema,
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
  result: scrollResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
});
