import { z } from 'zod';
import { approvalWaitSchema } from './approvals.js';
import { defineTool } from './define.js';
import { dragResultSchema, hoverResultSchema } from './results.js';
import { refSchema } from './input.js';

export const browserHover = defineTool({
  name: 'browser_hover',
  title: 'Hover',
  description: 'Move the mouse onto the element (opens hover menus and tooltips).',
  input: z.strictObject({ ref: refSchema }),
  result: hoverResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
});

export const browserDrag = defineTool({
  name: 'browser_drag',
  title: 'Drag and drop',
  description: 'Drag one element onto another.',
  input: z.strictObject({ from_ref: refSchema, to_ref: refSchema, wait: approvalWaitSchema }),
  result: dragResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
});
