import { z } from 'zod';
import { defineTool } from './define.js';

export const browserTabs = defineTool({
  name: 'browser_tabs',
  title: 'List tabs',
  description: 'The tabs this session can use (id, title, url, active), including ones the page opened.',
  input: z.strictObject({}),
  annotations: { readOnlyHint: true, openWorldHint: false },
});

export const browserTabActivate = defineTool({
  name: 'browser_tab_activate',
  title: 'Switch tab',
  description: 'Make the tab with this id (from browser_tabs) the one later calls act on.',
  input: z.strictObject({ tab_id: z.number().int().min(0) }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
});
