/**
 * The rule that refused a call, for its audit row: carried by the refusal (`details.rule`: the gateway's,
 * the engine's and Camofox's own decisions, or the one the extension sent with its refusal), or named
 * by the refusal's code itself (a private or metadata address, a page that moved since its snapshot).
 */
import { refusalRule, TabgateError, type SiteRefusalRule } from '../../protocol/index.js';

export function refusalRuleOf(error: unknown): SiteRefusalRule | undefined {
  if (!(error instanceof TabgateError)) return undefined;
  return refusalRule(error.controllerCode ?? error.code, error.details?.rule);
}
