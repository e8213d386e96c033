import { z } from 'zod';
import { defineTool } from './define.js';
import {
  tabActivateResultSchema,
  tabCloseResultSchema,
  tabNewResultSchema,
  tabsResultSchema,
} from './results.js';

export const browserTabs = defineTool({
  name: 'browser_tabs',
  title: 'List tabs',
  description: 'The tabs this session can use (id, title, url, active), including ones the page opened.',
  input: z.strictObject({}),
  result: tabsResultSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
});

export const browserTabActivate = defineTool({
  name: 'browser_tab_activate',
  title: 'Switch tab',
  description: 'Make the tab with this id (from browser_tabs) the one later calls act on.',
  input: z.strictObject({ tab_id: z.number().int().min(0) }),
  result: tabActivateResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
});

export const browserTabNew = defineTool({
  name: 'browser_tab_new',
  title: 'New tab',
  description:
    'Open a new tab (at url if given) and make it active. If the page cannot be opened, no tab is left open.',
  input: z.strictObject({ url: z.string().min(1).max(8192).optional() }),
  result: tabNewResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
});

export const browserTabClose = defineTool({
  name: 'browser_tab_close',
  title: 'Close tab',
  description: 'Close a tab (default: the active one).',
  input: z.strictObject({ tab_id: z.number().int().min(0).optional() }),
  result: tabCloseResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: false },
});
