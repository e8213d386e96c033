import { z } from 'zod';
import {
  ACTION_CLASSES,
  APPROVAL_CHANNELS,
  APPROVAL_KINDS,
  APPROVAL_STATUSES,
  type ApprovalRecord,
} from '../approvals.js';
import { defineTool } from './define.js';
import { result } from './results.js';

/** An approval as its channels show it; checked against ApprovalRecord, which stays its definition. */
export const approvalRecordSchema = result({
  approval_id: z.string(),
  kind: z.enum(APPROVAL_KINDS),
  session_id: z.string(),
  tool: z.string(),
  argument_hash: z.string(),
  ref: z.string().nullable(),
  frame_origin: z.string(),
  classes: z.array(z.enum(ACTION_CLASSES)),
  summary: z.string(),
  status: z.enum(APPROVAL_STATUSES),
  created_at: z.string(),
  expires_at: z.string(),
  decided_at: z.string().nullable(),
  decided_by: z.string().nullable(),
  channel: z.enum(APPROVAL_CHANNELS).nullable(),
}) satisfies z.ZodType<ApprovalRecord>;

/**
 * On every tool that may need the owner's approval: whether the call waits for the decision (the
 * default) or answers at once with `approval_required {approval_id}`. Explained once, in
 * browser_approval_status's description: the same words on seven tools cost every tool list.
 */
export const approvalWaitSchema = z.boolean().optional();

export const browserApprovalStatus = defineTool({
  name: 'browser_approval_status',
  title: 'Follow an approval',
  description:
    'Where an approval the owner was asked for stands: pending, approved (repeat the same call now), denied, expired or used. With wait: false an action answers approval_required {approval_id} at once.',
  input: z.strictObject({
    approval_id: z.string().min(1).max(100),
  }),
  result: approvalRecordSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
});
