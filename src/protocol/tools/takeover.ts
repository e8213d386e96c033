import { z } from 'zod';
import { TAKEOVER_TOOL } from '../approvals.js';
import { defineTool } from './define.js';
import { result } from './results.js';

/** The longest wait a call may ask for; the gateway's `safety.takeover_timeout_s` bounds it further. */
export const MAX_TAKEOVER_TIMEOUT_S = 3600;

/** What the person reads: one line of the agent's words, no control characters that could fake layout. */
const reasonSchema = z
  .string()
  .trim()
  .min(1)
  .max(300)
  .refine((text) => !/\p{Cc}/u.test(text), 'must not contain control characters (newlines included)')
  .describe('What the person should do, in one line: "Log in to example.com"');

export const browserRequestTakeover = defineTool({
  name: TAKEOVER_TOOL,
  title: 'Ask the person to take over',
  description:
    'Pause the session and ask the person to do one step themselves (log in, solve a CAPTCHA). Waits until they are done, decline or time runs out; other calls are refused meanwhile. You learn only that it was done, never what they typed.',
  input: z.strictObject({
    reason: reasonSchema,
    timeout_s: z
      .number()
      .int()
      .min(10)
      .max(MAX_TAKEOVER_TIMEOUT_S)
      .optional()
      .describe('Seconds to wait; at most safety.takeover_timeout_s (the default)'),
  }),
  result: result({
    done: z.literal(true),
    takeover_id: z.string(),
    /** The active tab after the person's step; null if the browser could not tell. */
    url: z.string().nullable(),
    title: z.string().nullable(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: true },
});
