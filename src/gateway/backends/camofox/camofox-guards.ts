/**
 * What Camofox can be held to from outside (docs/safety.md, "What enforces it, where"): Camofox is
 * driven over REST and offers no network hook, so the site rules judge a typed URL before Camofox hears
 * of it and the page an action left before the agent may read it, and the approval classes, which
 * cannot be told apart without the page, ask for every input.
 */
import { parseSiteUrl, TabgateError, type SiteRules } from '../../../protocol/index.js';
import type { ToolCall } from '../backend.js';

/** The refusal of a `browser_navigate` URL the session may not open; null when it may. */
export function typedUrlRefusal(rules: SiteRules | undefined, url: string): TabgateError | null {
  if (!rules || url === 'about:blank') return null;
  const decision = rules.decideUrl(url);
  if (decision.allowed) return null;
  return new TabgateError(decision.code, `Refused: ${decision.reason}.`, { rule: decision.rule });
}

/**
 * The origin of the page an action left (null for a page that is no site: about:blank, data:), and
 * the refusal when the session may not be there: the page got there on its own (a link, a form, a
 * redirect), and its request has left.
 */
export function judgeLanded(
  rules: SiteRules | undefined,
  url: string,
): { origin: string | null; refusal: TabgateError | null } {
  const parsed = parseSiteUrl(url);
  if (!parsed.ok) return { origin: null, refusal: null };
  const decision = rules?.decide(parsed.site);
  if (!decision || decision.allowed) return { origin: parsed.site.origin, refusal: null };
  return {
    origin: parsed.site.origin,
    refusal: new TabgateError(
      decision.code,
      `Refused: ${decision.reason}. The page went there on its own, which Camofox cannot stop before it loads, so tabgate closed it; navigate again.`,
      { rule: decision.rule },
    ),
  };
}

/**
 * With approval classes on for remote browsers (`safety.approvals.remote`), an input waits for the
 * person. Camofox cannot show tabgate the element or the requests an input sets off, so it cannot tell
 * a consequential one from another: every click, submitted text and key is asked for.
 */
export async function askApproval(call: ToolCall, pageOrigin: string | null): Promise<void> {
  const gate = call.approvals;
  if (!gate) return;
  const args = call.args as Record<string, unknown>;
  let ref: string | null = null;
  let what: string;
  if (call.tool === 'browser_click') {
    ref = String(args.ref);
    what = `click ${ref}`;
  } else if (call.tool === 'browser_type' && args.submit === true) {
    ref = String(args.ref);
    what = `type into ${ref} and press Enter`;
  } else if (call.tool === 'browser_press') {
    what = `press ${String(args.key)}`;
  } else return;
  await gate.ask({
    ref,
    frameOrigin: pageOrigin ?? '',
    classes: [...gate.policy.classes],
    summary: `${what} on ${pageOrigin ?? 'the page'} (Camofox cannot tell what an input sets off, so each one is asked for)`,
  });
}
