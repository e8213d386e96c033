/**
 * A vault secret on its way to one fill: what the gateway hands the engine (in its own process, or to
 * the tabgate extension in the command frame of that one `browser_type`). The executor fills only a
 * field whose frame origin is `origin` and whose kind fits `field`; nothing else ever carries `value`.
 */
import { z } from 'zod';

export const SECRET_FIELDS = ['password', 'username', 'otp', 'card'] as const;
export type SecretField = (typeof SECRET_FIELDS)[number];

export const SECRET_NAME_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export const secretFillSchema = z.strictObject({
  name: z.string().regex(SECRET_NAME_PATTERN),
  origin: z.string().min(1).max(300),
  field: z.enum(SECRET_FIELDS),
  value: z.string().min(1).max(4096),
});
export type SecretFill = z.infer<typeof secretFillSchema>;
