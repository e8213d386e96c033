import { z } from 'zod';
import { approvalWaitSchema } from './approvals.js';
import { defineTool } from './define.js';
import { fillFormResultSchema, selectOptionResultSchema, uploadResultSchema } from './results.js';
import { refSchema } from './input.js';

const optionValue = z.string().max(1000);

export const browserSelectOption = defineTool({
  name: 'browser_select_option',
  title: 'Choose options',
  description: 'Choose options of a select by label or value; several for a multi-select.',
  input: z.strictObject({
    ref: refSchema,
    values: z.array(optionValue).min(1).max(100),
    wait: approvalWaitSchema,
  }),
  result: selectOptionResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
});

export const browserFillForm = defineTool({
  name: 'browser_fill_form',
  title: 'Fill a form',
  description: 'Fill fields in one call: text, an option, or true/false for a checkbox or radio.',
  input: z.strictObject({
    fields: z
      .array(z.strictObject({ ref: refSchema, value: z.union([z.string().max(100_000), z.boolean()]) }))
      .min(1)
      .max(100),
    wait: approvalWaitSchema,
  }),
  result: fillFormResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
});

export const browserUpload = defineTool({
  name: 'browser_upload',
  title: 'Upload files',
  description: 'Set files (absolute paths under browser.upload_roots) on a file input.',
  input: z.strictObject({
    ref: refSchema,
    paths: z.array(z.string().min(1).max(4096)).min(1).max(20),
    wait: approvalWaitSchema,
  }),
  result: uploadResultSchema,
  annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
});
