import { z } from 'zod';
import { defineTool } from './define.js';
import { snapshotResultSchema } from './results.js';

export const browserRead = defineTool({
  name: 'browser_read',
  title: 'Read the article',
  description:
    "The page's main content as text (menus and sidebars left out), links as [text](@e12). For reading; use browser_snapshot to act.",
  input: z.strictObject({
    offset: z.number().int().min(0).optional().describe('Character offset to continue from'),
  }),
  result: snapshotResultSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
});
