import { z } from 'zod';
import { defineTool } from './define.js';

export const browserRead = defineTool({
  name: 'browser_read',
  title: 'Read the article',
  description:
    "The page's main content as clean text: headings, paragraphs, lists and tables in order, links as [text](@e12) refs, menus and sidebars left out. Use it to read an article; use browser_snapshot to act. offset continues a cut answer.",
  input: z.strictObject({
    offset: z.number().int().min(0).optional().describe('Character offset to continue from'),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
});
