import { z } from 'zod';
import { defineTool } from './define.js';
import {
  consoleResultSchema,
  imagesResultSchema,
  screenshotResultSchema,
  snapshotResultSchema,
} from './results.js';
import { refSchema } from './input.js';

export const browserSnapshot = defineTool({
  name: 'browser_snapshot',
  title: 'Read the page',
  description:
    'Text outline of the page: interactive elements with refs like @e3, headings and text. Take one before acting and after the page changes. full: all text; ref: one element; find: only lines containing a text.',
  input: z.strictObject({
    full: z.boolean().optional(),
    offset: z.number().int().min(0).optional().describe('Character offset to continue from'),
    ref: refSchema.optional().describe('e.g. @e12'),
    find: z.string().min(1).max(200).optional().describe('case-insensitive'),
  }),
  result: snapshotResultSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
});

export const browserScreenshot = defineTool({
  name: 'browser_screenshot',
  title: 'Screenshot',
  description: 'PNG or JPEG of the viewport, the full page or one ref; annotate draws the refs on it.',
  // The two rules between fields are the catalog's, so the gateway refuses such a call before it
  // reaches any browser, the user's tab included, with the same error everywhere.
  input: z
    .strictObject({
      full_page: z.boolean().optional(),
      ref: refSchema.optional(),
      format: z.enum(['png', 'jpeg']).optional(),
      quality: z.number().int().min(1).max(100).optional().describe('jpeg only'),
      annotate: z.boolean().optional(),
    })
    .refine((args) => args.quality === undefined || args.format === 'jpeg', {
      message: 'only valid with format: "jpeg"',
      path: ['quality'],
    })
    .refine((args) => args.ref === undefined || args.full_page !== true, {
      message: 'a screenshot is of one element or of the full page, not both',
      path: ['ref'],
    }),
  result: screenshotResultSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
});

export const browserConsole = defineTool({
  name: 'browser_console',
  title: 'Console messages',
  description:
    "The page's console messages and uncaught errors since the last clear. clear empties the list.",
  input: z.strictObject({ clear: z.boolean().optional() }),
  result: consoleResultSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
});

export const browserGetImages = defineTool({
  name: 'browser_get_images',
  title: 'List images',
  description: 'Images on the page with src, alt text and size.',
  input: z.strictObject({}),
  result: imagesResultSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
});
