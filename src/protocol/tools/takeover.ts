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
  .describe('What the person should do and why, in one line: "Log in to example.com", "Solve the CAPTCHA"');

export const browserRequestTakeover = defineTool({
  name: TAKEOVER_TOOL,
  title: 'Ask the person to take over',
  description:
    'Pause this session and ask the person to do one step on the page themselves (log in, solve a CAPTCHA, confirm on their phone). Blocks until they mark it done, decline or the time runs out; meanwhile every other call of the session is refused. You learn only that it was done and where the page is now, never what they typed.',
  input: z.strictObject({
    reason: reasonSchema,
    timeout_s: z
      .number()
      .int()
      .min(10)
      .max(MAX_TAKEOVER_TIMEOUT_S)
      .optional()
      .describe(
        "Seconds to wait for the person; at most the gateway's safety.takeover_timeout_s (the default)",
      ),
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
