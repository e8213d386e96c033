/**
 * How a controller's error reaches the agent: its own code and message when it sent `{code, message}`,
 * the text when it sent a string, compact JSON otherwise; bounded so a hostile controller cannot flood
 * the agent's context.
 */
import { siteRefusalRuleSchema, type SiteRefusalRule } from '../../protocol/index.js';

const MAX_CHARS = 1000;

export function describeRejection(error: unknown): string {
  let text: string;
  if (typeof error === 'string') text = error;
  else if (typeof error === 'object' && error !== null && !Array.isArray(error)) {
    const { code, message } = error as Record<string, unknown>;
    if (typeof code === 'string' && typeof message === 'string') text = `${code}: ${message}`;
    else if (typeof code === 'string') text = code;
    else if (typeof message === 'string') text = message;
    else text = JSON.stringify(error);
  } else if (error === undefined) text = 'no error given';
  else text = JSON.stringify(error) ?? typeof error;
  return text.length > MAX_CHARS ? `${text.slice(0, MAX_CHARS)}…` : text;
}

/** The rule the controller named for its site refusal, when it sent one of ours (`{rule: "denied", …}`). */
export function rejectionRule(error: unknown): SiteRefusalRule | undefined {
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return undefined;
  const parsed = siteRefusalRuleSchema.safeParse((error as Record<string, unknown>).rule);
  return parsed.success ? parsed.data : undefined;
}

/** The controller's own error code, when it sent `{code: "<code>", …}`. */
export function rejectionCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || Array.isArray(error)) return undefined;
  const { code } = error as Record<string, unknown>;
  return typeof code === 'string' ? code : undefined;
}
