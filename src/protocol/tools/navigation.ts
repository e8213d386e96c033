import { z } from 'zod';
import { defineTool } from './define.js';
import { navigateResultSchema, pageInfoSchema } from './results.js';

export const browserNavigate = defineTool({
  name: 'browser_navigate',
  title: 'Open a URL',
  description:
    'Open an http(s) URL and wait until it settles, following every kind of redirect. Returns the final URL, title, status, redirects and the page outline (a small page whole).',
  input: z.strictObject({
    url: z.string().min(1).max(8192).describe('Absolute http(s) URL, or about:blank'),
    snapshot: z
      .enum(['full', 'outline', 'none'])
      .optional()
      .describe('outline (default), full (first snapshot page) or none'),
  }),
  result: navigateResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
});

export const browserBack = defineTool({
  name: 'browser_back',
  title: 'Go back',
  description: "Go back one entry in the current tab's history. Refs from the previous page become stale.",
  input: z.strictObject({}),
  result: pageInfoSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
});

export const browserForward = defineTool({
  name: 'browser_forward',
  title: 'Go forward',
  description: 'Go forward one entry in the tab history.',
  input: z.strictObject({}),
  result: pageInfoSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
});

export const browserReload = defineTool({
  name: 'browser_reload',
  title: 'Reload',
  description: 'Reload the current page.',
  input: z.strictObject({}),
  result: pageInfoSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
});
