import { z } from 'zod';
import { defineTool } from './define.js';
import { waitResultSchema } from './results.js';
import { refSchema } from './input.js';

export const MAX_WAIT_SECONDS = 30;

export const browserWaitFor = defineTool({
  name: 'browser_wait_for',
  title: 'Wait',
  description: `Wait until text appears, text goes, or a ref goes (or for seconds; at most ${MAX_WAIT_SECONDS}); returns the snapshot.`,
  input: z
    .strictObject({
      text: z.string().min(1).max(1000).optional(),
      text_gone: z.string().min(1).max(1000).optional(),
      ref_gone: refSchema.optional(),
      seconds: z.number().positive().max(MAX_WAIT_SECONDS).optional(),
    })
    .refine(
      (args) => Object.values(args).some((value) => value !== undefined),
      'expected at least one of text, text_gone, ref_gone, seconds',
    ),
  result: waitResultSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
});
