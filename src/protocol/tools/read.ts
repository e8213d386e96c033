import { z } from 'zod';
import { defineTool } from './define.js';

export const browserRead = defineTool({
  name: 'browser_read',
  title: 'Read the article',
  description:
    "The page's main content as text (menus and sidebars left out), links as [text](@e12). For reading; use browser_snapshot to act.",
  input: z.strictObject({
    offset: z.number().int().min(0).optional().describe('Character offset to continue from'),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
});
