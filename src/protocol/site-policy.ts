/**
 * Which sites a session's frames may be moved to (docs/safety.md). Pure, and shared by the gateway, the
 * engine's network guard and the extension, so the three refuse the same things for the same reasons.
 *
 * Order of the rules: `sites.deny` always wins (`site_blocked`); then the session's grants, `sites.allow`
 * and, on the user's tab, the origin they shared (allowed); then the high-risk categories (`site_blocked`
 * until granted by name); then the mode: `off` lets the rest through, `ask` and `allow-listed` refuse it
 * with `site_not_granted`.
 */
import { z } from 'zod';
import {
  formatPattern,
  matchesPattern,
  parseSitePattern,
  parseSiteUrl,
  type SiteAddress,
  type SitePattern,
} from './site-address.js';
import { categoryOfHost, SITE_CATEGORY_NAMES, type SiteCategory } from './site-categories.js';

/**
 * - `ask`: only what is allowed or granted; the owner grants more per session (extension popup,
 *   `tabgate grants add`), and a session may ask for its sites up front.
 * - `allow-listed`: only `sites.allow` (and the shared origin on the user's tab); no grants.
 * - `off`: anywhere but `sites.deny`.
 */
export const SITE_MODES = ['ask', 'allow-listed', 'off'] as const;
export type SiteMode = (typeof SITE_MODES)[number];

/** The policy in force for one session, as plain data (it crosses the wire to the extension). */
export interface SitePolicy {
  mode: SiteMode;
  allow: readonly string[];
  deny: readonly string[];
  /** Granted by the owner for this session (never by the agent). */
  grants: readonly string[];
  blockedCategories: readonly SiteCategory[];
}

/**
 * Which rule refused a site, for the audit row (the error code alone says `site_blocked` for a denied
 * site and a high-risk one alike): the site decisions' own, and the refusals every browser makes
 * before them (a private address for a remote browser, a cloud metadata address, a page that moved
 * since its snapshot). It crosses the wire from the extension, as an optional field of its refusal.
 */
export const SITE_REFUSAL_RULES = [
  'denied',
  'high_risk',
  'not_granted',
  'not_allowed',
  'not_a_site',
  'domain_changed',
  'private_address',
  'metadata',
] as const;
export type SiteRefusalRule = (typeof SITE_REFUSAL_RULES)[number];
export const siteRefusalRuleSchema = z.enum(SITE_REFUSAL_RULES);

export type SiteDecision =
  | { allowed: true }
  | {
      allowed: false;
      code: 'site_not_granted' | 'site_blocked';
      rule: SiteRefusalRule;
      origin: string;
      reason: string;
    };

/** The policy that refuses everything: what a session runs under when its policy could not be built. */
export const REFUSE_ALL_POLICY: SitePolicy = Object.freeze({
  mode: 'allow-listed',
  allow: [],
  deny: [],
  grants: [],
  blockedCategories: SITE_CATEGORY_NAMES,
});

/** Patterns that do not parse are dropped here; the config schema and the grant routes refuse them. */
function compile(patterns: readonly string[]): SitePattern[] {
  const out: SitePattern[] = [];
  for (const raw of patterns) {
    const parsed = parseSitePattern(raw);
    if (parsed.ok) out.push(parsed.pattern);
  }
  return out;
}

/** A policy compiled once, decided many times (the network guard asks for every navigation). */
export class SiteRules {
  private readonly allow: SitePattern[];
  private readonly deny: SitePattern[];
  private readonly grants: SitePattern[];
  private readonly categories: ReadonlySet<SiteCategory>;

  constructor(readonly policy: SitePolicy) {
    this.allow = compile(policy.allow);
    this.deny = compile(policy.deny);
    this.grants = policy.mode === 'ask' ? compile(policy.grants) : [];
    this.categories = new Set(policy.blockedCategories);
  }

  /** The decision on moving a frame to `raw` (a URL); `sharedOrigin` is the origin the user shared. */
  decideUrl(raw: string, sharedOrigin?: string): SiteDecision {
    const parsed = parseSiteUrl(raw);
    if (!parsed.ok) {
      return {
        allowed: false,
        code: 'site_blocked',
        rule: 'not_a_site',
        origin: raw.slice(0, 120),
        reason: parsed.reason,
      };
    }
    return this.decide(parsed.site, sharedOrigin);
  }

  decide(site: SiteAddress, sharedOrigin?: string): SiteDecision {
    const { origin } = site;
    if (this.deny.some((rule) => matchesPattern(site, rule))) {
      return {
        allowed: false,
        code: 'site_blocked',
        rule: 'denied',
        origin,
        reason: `${origin} is on safety.sites.deny`,
      };
    }
    if (origin === sharedOrigin) return { allowed: true };
    if (this.grants.some((rule) => matchesPattern(site, rule))) return { allowed: true };
    if (this.allow.some((rule) => matchesPattern(site, rule))) return { allowed: true };
    const listed = categoryOfHost(site.host);
    if (listed && this.categories.has(listed.category)) {
      return {
        allowed: false,
        code: 'site_blocked',
        rule: 'high_risk',
        origin,
        reason: `${origin} is a ${listed.category} site, blocked until the owner grants it by name`,
      };
    }
    if (this.policy.mode === 'off') return { allowed: true };
    return {
      allowed: false,
      code: 'site_not_granted',
      rule: this.policy.mode === 'ask' ? 'not_granted' : 'not_allowed',
      origin,
      reason:
        this.policy.mode === 'ask'
          ? `${origin} is not granted to this session; the owner can grant it in the tabgate extension or with \`tabgate grants add <session> ${origin}\``
          : `${origin} is not on safety.sites.allow, and this gateway takes no grants (safety mode allow-listed)`,
    };
  }
}

/** A site rule as it is stored and shown, or the reason it is refused. */
export function normalizeSitePattern(
  raw: string,
): { ok: true; value: string } | { ok: false; reason: string } {
  const parsed = parseSitePattern(raw);
  return parsed.ok ? { ok: true, value: formatPattern(parsed.pattern) } : parsed;
}

/** Codes that name their rule by themselves; a site decision's code needs its rule carried with it. */
const RULE_OF_CODE: Readonly<Record<string, SiteRefusalRule>> = {
  private_url_blocked: 'private_address',
  metadata_url_blocked: 'metadata',
  domain_changed: 'domain_changed',
};

/**
 * The rule behind a refusal: the one it carries when that is one of ours, else the one its code names
 * by itself (none for a site decision's code without its rule: an older extension's refusal).
 */
export function refusalRule(code: string | undefined, carried?: unknown): SiteRefusalRule | undefined {
  const parsed = siteRefusalRuleSchema.safeParse(carried);
  if (parsed.success) return parsed.data;
  return code === undefined ? undefined : RULE_OF_CODE[code];
}
