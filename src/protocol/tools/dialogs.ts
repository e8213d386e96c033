import { z } from 'zod';
import { approvalWaitSchema } from './approvals.js';
import { defineTool } from './define.js';
import { dialogResultSchema, downloadsResultSchema } from './results.js';

export const browserDialog = defineTool({
  name: 'browser_dialog',
  title: 'Answer a dialog',
  description: 'Accept or dismiss the open alert/confirm/prompt/beforeunload dialog.',
  input: z.strictObject({
    action: z.enum(['accept', 'dismiss']),
    prompt_text: z.string().max(10_000).optional(),
    wait: approvalWaitSchema,
  }),
  result: dialogResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
});

export const browserDownloads = defineTool({
  name: 'browser_downloads',
  title: 'List downloads',
  description:
    'Files this session downloaded: name, size, mime, state; sha256 and path where tabgate keeps them.',
  input: z.strictObject({}),
  result: downloadsResultSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
});
