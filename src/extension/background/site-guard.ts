/**
 * The session's site policy, read from the gateway with the extension's own pairing token and checked
 * in the user's browser before every action (docs/safety.md, "What enforces it, where"):
 * - `browser_navigate` to a site that is neither shared, granted nor allowed: `site_not_granted`
 *   (`site_blocked` for a denied or high-risk one), before anything is requested;
 * - an action on a page whose origin is not allowed (it got there some way the rules did not see), or
 *   on a ref inside a frame whose origin is not allowed (an iframe of a site revoked since it loaded):
 *   the same codes;
 * - an action with a snapshot's ref on a page that moved to another origin since that snapshot:
 *   `domain_changed`.
 * The policy is read afresh for every command, so a grant or a revoke (popup, `tabgate grants`) holds
 * from the next action on; when it cannot be read or does not parse, the extension does nothing.
 */
import { z } from 'zod';
import {
  checkNavigationUrl,
  parseSiteUrl,
  SITE_CATEGORY_NAMES,
  SITE_MODES,
  SiteRules,
  TabgateError,
  type SiteDecision,
} from '../../protocol/index.js';
import type { Refusal } from '../../engine/network-guard.js';
import { chrome } from '../chrome-api.js';
import { CommandError } from './command-error.js';
import { readLocal, readSession, writeSession, type StoredSitePolicy } from './durable-state.js';
import { fetchSessionSites, type SessionSites } from './gateway-api.js';
import { guardNewTabs, refreshSiteRules } from './share.js';

/** Actions that act on the page the tab shows: its origin must be allowed. */
const ACTING = new Set([
  'browser_click',
  'browser_type',
  'browser_hover',
  'browser_drag',
  'browser_select_option',
  'browser_fill_form',
  'browser_press',
  'browser_scroll',
  'browser_dialog',
  'browser_upload',
]);
/** Actions that can make a page open a tab; tabs opened while they run are held to the policy too. */
const MAY_OPEN_TABS = new Set([
  ...ACTING,
  'browser_navigate',
  'browser_back',
  'browser_forward',
  'browser_reload',
]);
/** How long after such an action a page may still open a tab: Chrome's user activation lasts 5 s. */
export const NEW_TAB_GUARD_MS = 5_000;

/** Of those, the ones that name a snapshot's refs: the page must still be on the snapshot's origin. */
const WITH_REFS = new Set([
  'browser_click',
  'browser_type',
  'browser_hover',
  'browser_drag',
  'browser_select_option',
  'browser_fill_form',
  'browser_upload',
]);

const sites = z.array(z.string().max(300)).max(1000);
const sessionSitesSchema = z.object({
  policy: z.object({
    mode: z.enum(SITE_MODES),
    allow: sites,
    deny: sites,
    grants: sites,
    blockedCategories: z.array(z.enum(SITE_CATEGORY_NAMES as [string, ...string[]])),
  }),
  sites: z.object({ granted: sites, requested: sites }),
});

/**
 * Reads the session's sites from the gateway, keeps them for the popup and the rules, and installs the
 * network rules again when the policy changed. Throws when the gateway cannot be asked or answers
 * something that is not a policy.
 */
export async function loadSessionSites(sessionId: string): Promise<StoredSitePolicy> {
  const [pairing, base] = await Promise.all([readLocal('pairing'), readLocal('gateway_url')]);
  if (!pairing) throw new CommandError('site_policy_unavailable', 'This browser is not paired any more.');
  const answer: SessionSites = await fetchSessionSites(base, pairing.token, sessionId);
  return keepSessionSites(sessionId, answer);
}

/** What was kept last, so an unchanged answer (nearly every one) costs no storage or rule update. */
let lastKept: { key: string; stored: StoredSitePolicy } | null = null;

/** Keeps what the gateway answered (a read, or a grant the person made) and applies it. */
export async function keepSessionSites(sessionId: string, answer: unknown): Promise<StoredSitePolicy> {
  const parsed = sessionSitesSchema.safeParse(answer);
  if (!parsed.success)
    throw new CommandError(
      'site_policy_unavailable',
      'The gateway sent a site policy this extension cannot read.',
    );
  const stored: StoredSitePolicy = {
    session_id: sessionId,
    policy: parsed.data.policy as StoredSitePolicy['policy'],
    granted: parsed.data.sites.granted,
    requested: parsed.data.sites.requested,
    fetched_at: Date.now(),
  };
  const key = JSON.stringify([sessionId, parsed.data]);
  if (lastKept?.key === key && (await readSession('site_policy'))?.session_id === sessionId) {
    lastKept.stored.fetched_at = stored.fetched_at;
    return lastKept.stored;
  }
  lastKept = { key, stored };
  const before = await readSession('site_policy');
  await writeSession('site_policy', stored);
  if (before?.session_id !== sessionId || JSON.stringify(before.policy) !== JSON.stringify(stored.policy))
    await refreshSiteRules();
  return stored;
}

function refuse(decision: SiteDecision, what: (origin: string) => string): void {
  if (decision.allowed) return;
  throw new TabgateError(decision.code, `${what(decision.origin)}: ${decision.reason}.`, {
    rule: decision.rule,
  });
}

/** The refs an action's arguments name (`ref`, a drag's two ends, a form's fields). */
function refsOf(args: Record<string, unknown>): string[] {
  const refs: unknown[] = [args.ref, args.from_ref, args.to_ref];
  if (Array.isArray(args.fields))
    for (const field of args.fields as unknown[]) refs.push((field as { ref?: unknown } | null)?.ref);
  return refs.filter((ref): ref is string => typeof ref === 'string');
}

/** What the agent last saw in a tab: the origin of its page, or the scheme of a page that is no site. */
function originKey(url: string): string {
  const parsed = parseSiteUrl(url);
  return parsed.ok ? parsed.site.origin : (url.split(':')[0] ?? '') + ':';
}

/**
 * How long a policy read serves actions that only read the page (snapshot, screenshot, tabs): they move
 * nothing, so a grant revoked a moment ago costs nothing there. Every action that acts or navigates
 * reads the policy afresh.
 */
export const READING_POLICY_MAX_AGE_MS = 2_000;

export class SiteGuard {
  private last: StoredSitePolicy | null = null;
  /** The rules the last action was checked against, and the origin the user had shared. */
  private judged: { rules: SiteRules; shared: string | undefined } | null = null;

  /**
   * Why the network rules kept a shared tab from `url` (its error page names it), by the rules the last
   * action was checked against: the same policy, so the same code and rule the agent would have met
   * had it typed the address. Null when they allow it (it failed for another reason) or none were read.
   */
  errorPageRefusal(url: string, frameId: string): Refusal | null {
    const judged = this.judged;
    const decision = judged?.rules.decideUrl(url, judged.shared);
    if (!decision || decision.allowed) return null;
    return {
      url,
      frameId,
      resourceType: 'Document',
      code: decision.code,
      rule: decision.rule,
      reason: decision.reason,
    };
  }

  private async policy(sessionId: string, fresh: boolean): Promise<StoredSitePolicy> {
    const last = this.last;
    if (!fresh && last?.session_id === sessionId && Date.now() - last.fetched_at < READING_POLICY_MAX_AGE_MS)
      return last;
    this.last = null;
    this.last = await loadSessionSites(sessionId);
    return this.last;
  }

  /**
   * Checks an action before it runs; `deadline` (epoch ms) bounds how long it may open tabs.
   * `frameOriginOf` tells the origin of the frame a ref points into, as Chromium reported it to the
   * engine (undefined for a ref the engine no longer knows: the engine refuses it as `stale_ref`).
   */
  async before(
    action: string,
    args: Record<string, unknown>,
    deadline: number,
    frameOriginOf: (ref: string) => string | undefined = () => undefined,
  ): Promise<void> {
    const share = await readLocal('share');
    if (!share) return;
    let stored: StoredSitePolicy;
    try {
      stored = await this.policy(share.session_id, ACTING.has(action) || MAY_OPEN_TABS.has(action));
    } catch (error) {
      if (error instanceof CommandError) throw error;
      throw new CommandError(
        'site_policy_unavailable',
        `The extension could not read this session's site policy, so it does nothing (${String((error as Error).message ?? error).slice(0, 200)}).`,
      );
    }
    const rules = new SiteRules(stored.policy);
    const shared = share.shared_origin ?? undefined;
    this.judged = { rules, shared };
    if (action === 'browser_navigate') {
      const url = typeof args.url === 'string' ? args.url : '';
      // A URL no browser may open at all (`file:`, `javascript:`, …) is the engine's to refuse, as
      // `invalid_url` on every backend; the site rules judge what could be opened.
      if (url !== 'about:blank' && checkNavigationUrl(url).kind === 'ok')
        refuse(rules.decideUrl(url, shared), (origin) => `Not opening ${origin}`);
    }
    if (MAY_OPEN_TABS.has(action)) await guardNewTabs(deadline + NEW_TAB_GUARD_MS);
    if (!ACTING.has(action)) return;
    const tabId = share.active_tab_id;
    const url = (await chrome.tabs.get(tabId).catch(() => null))?.url ?? '';
    const parsed = parseSiteUrl(url);
    if (parsed.ok) {
      refuse(rules.decide(parsed.site, shared), (origin) => `The page is now on ${origin}`);
    }
    // An iframe stays loaded after its site is revoked, and the rules only judge new requests: the
    // frame an input lands in is judged on its own origin, not on the page's.
    for (const ref of refsOf(args)) {
      const frame = parseSiteUrl(frameOriginOf(ref) ?? '');
      if (frame.ok && (!parsed.ok || frame.site.origin !== parsed.site.origin))
        refuse(rules.decide(frame.site, shared), (origin) => `${ref} is in a frame on ${origin}`);
    }
    if (!WITH_REFS.has(action)) return;
    const seen = (await readSession('snapshot_origins'))[String(tabId)];
    const now = originKey(url);
    if (seen !== undefined && seen !== now) {
      throw new TabgateError(
        'domain_changed',
        `The page moved from ${seen} to ${now} since the last browser_snapshot; take a new snapshot before acting on it.`,
      );
    }
  }

  /** The action ended (either way): tabs its page opens from now on are held for a few seconds more. */
  async done(action: string): Promise<void> {
    if (MAY_OPEN_TABS.has(action)) await guardNewTabs(Date.now() + NEW_TAB_GUARD_MS).catch(() => undefined);
  }

  /** After a snapshot: remember the origin its refs belong to. */
  async after(action: string): Promise<void> {
    if (action !== 'browser_snapshot') return;
    const share = await readLocal('share');
    if (!share) return;
    const tab = await chrome.tabs.get(share.active_tab_id).catch(() => null);
    if (!tab) return;
    const seen = await readSession('snapshot_origins');
    await writeSession('snapshot_origins', { ...seen, [share.active_tab_id]: originKey(tab.url ?? '') });
  }

  /** The share ended: what was seen belongs to it. */
  async clear(): Promise<void> {
    this.last = null;
    this.judged = null;
    await writeSession('snapshot_origins', {});
  }
}
