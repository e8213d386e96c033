import { z } from 'zod';
import { defineTool } from './define.js';

export const browserNavigate = defineTool({
  name: 'browser_navigate',
  title: 'Open a URL',
  description:
    'Open an http(s) URL in the current tab and wait until it settles, following redirects of every kind (HTTP, meta refresh, script). Returns the final URL, title, HTTP status, the redirects it passed through and the page\'s outline (a small page whole, with refs). snapshot: "full" returns the first snapshot page instead, "none" no snapshot.',
  input: z.strictObject({
    url: z.string().min(1).max(8192).describe('Absolute http(s) URL, or about:blank'),
    snapshot: z
      .enum(['full', 'outline', 'none'])
      .optional()
      .describe('What of the loaded page to return: outline (default), full (first snapshot page), none'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
});

export const browserBack = defineTool({
  name: 'browser_back',
  title: 'Go back',
  description: "Go back one entry in the current tab's history. Refs from the previous page become stale.",
  input: z.strictObject({}),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
});

export const browserForward = defineTool({
  name: 'browser_forward',
  title: 'Go forward',
  description: 'Go forward one entry in the tab history.',
  input: z.strictObject({}),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
});

export const browserReload = defineTool({
  name: 'browser_reload',
  title: 'Reload',
  description: 'Reload the current page.',
  input: z.strictObject({}),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
});
