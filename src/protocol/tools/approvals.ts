import { z } from 'zod';
import { defineTool } from './define.js';

/**
 * On every tool that may need the owner's approval: whether the call waits for the decision (the
 * default) or answers at once with `approval_required {approval_id}`.
 */
export const approvalWaitSchema = z
  .boolean()
  .optional()
  .describe('false: if the owner must approve, answer at once with approval_required {approval_id}');

export const browserApprovalStatus = defineTool({
  name: 'browser_approval_status',
  title: 'Follow an approval',
  description:
    'Where an approval this session asked the owner for stands: pending, approved (repeat the same call now), denied, expired or used.',
  input: z.strictObject({
    approval_id: z.string().min(1).max(100),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
});
