/**
 * The session's site policy at the network layer of the user's browser: declarativeNetRequest session
 * rules scoped to the shared tabs (`tabIds`), so they follow the share (a tab joins, a tab leaves) and go
 * with it. They judge main-frame and sub-frame requests only, every hop of a redirect included, and need
 * the service worker for nothing: Chrome applies them while the worker sleeps.
 *
 * The policy's order (src/protocol/site-policy.ts) becomes rule priorities:
 *   5  block  `sites.deny`                               (deny always wins)
 *   4  allow  the shared origin, the grants, `sites.allow`
 *   3  block  the blocked categories' domains            (until granted or allowed by name)
 *   2  block  everything else in the shared tabs         (not in mode `off`)
 * The metadata rules (metadata-rule.ts) sit above all of these: no grant reopens a metadata address.
 */
import {
  parseSitePattern,
  SITE_CATEGORIES,
  type SitePattern,
  type SitePolicy,
} from '../../protocol/index.js';

export const FRAME_TYPES = ['main_frame', 'sub_frame'];

/**
 * Which tabs a rule set covers: the shared tabs, or every tab but the ones named (while an action runs,
 * so a tab the page opens is covered from its first request, before it can join the share).
 */
export type TabScope = { tabIds: number[] } | { excludedTabIds: number[] };

export interface SiteRule {
  id: number;
  priority: number;
  action: { type: 'block' | 'allow' };
  condition: {
    tabIds?: number[];
    excludedTabIds?: number[];
    resourceTypes: string[];
    regexFilter?: string;
    requestDomains?: string[];
    isUrlFilterCaseSensitive?: boolean;
  };
}

interface DeclarativeNetRequest {
  updateSessionRules(options: { removeRuleIds?: number[]; addRules?: SiteRule[] }): Promise<void>;
  getSessionRules(): Promise<{ id: number }[]>;
}

/** Site rules take ids from here on; below are the metadata rules. */
export const FIRST_SITE_RULE_ID = 100;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** A host as Chrome writes it in a URL (brackets around IPv6; a trailing dot may stay). */
const hostExpression = (host: string) =>
  host.includes(':') ? `\\[${escape(host)}\\]` : `${escape(host)}\\.?`;

const schemeExpression = (scheme?: 'http:' | 'https:') => (scheme ? scheme.slice(0, -1) : 'https?');

/** The URLs a site pattern matches, as an RE2 expression over Chrome's canonical URL (no userinfo). */
export function patternExpression(pattern: SitePattern): string {
  const end = '([/?#]|$)';
  switch (pattern.kind) {
    case 'origin': {
      const isDefault = (pattern.scheme === 'https:' ? 443 : 80) === pattern.port;
      // Chrome drops a default port from the URL it matches; a non-default one is always written.
      const port = isDefault ? '' : `:${pattern.port}`;
      return `^${schemeExpression(pattern.scheme)}://${hostExpression(pattern.host)}${port}${end}`;
    }
    case 'host':
      return `^${schemeExpression(pattern.scheme)}://${hostExpression(pattern.host)}(:[0-9]+)?${end}`;
    case 'subdomains':
      return `^${schemeExpression(pattern.scheme)}://[^/?#:@\\[\\]]+\\.${hostExpression(pattern.parent)}(:[0-9]+)?${end}`;
  }
}

function patterns(raw: readonly string[]): SitePattern[] {
  return raw.flatMap((text) => {
    const parsed = parseSitePattern(text);
    return parsed.ok ? [parsed.pattern] : [];
  });
}

/**
 * The rules for a policy over the shared tabs. `policy` null means none could be read: the tabs may then
 * stay on the origin the user shared and go nowhere else (fail closed).
 */
export function siteRulesFor(
  policy: SitePolicy | null,
  scope: TabScope,
  sharedOrigin: string | null,
  firstId = FIRST_SITE_RULE_ID,
): SiteRule[] {
  if ('tabIds' in scope && scope.tabIds.length === 0) return [];
  let id = firstId;
  const rules: SiteRule[] = [];
  const add = (priority: number, type: 'block' | 'allow', match: Partial<SiteRule['condition']>) =>
    rules.push({
      id: id++,
      priority,
      action: { type },
      condition: {
        ...('tabIds' in scope
          ? { tabIds: [...scope.tabIds] }
          : { excludedTabIds: [...scope.excludedTabIds] }),
        resourceTypes: FRAME_TYPES,
        isUrlFilterCaseSensitive: false,
        ...match,
      },
    });
  if (policy?.mode !== 'off') add(2, 'block', {});
  const categories = (policy?.blockedCategories ?? []).flatMap((name) => [...SITE_CATEGORIES[name]]);
  if (categories.length > 0) add(3, 'block', { requestDomains: categories });
  const allowed = [
    ...(sharedOrigin ? [sharedOrigin] : []),
    ...(policy?.mode === 'ask' ? policy.grants : []),
    ...(policy?.allow ?? []),
  ];
  for (const pattern of patterns(allowed)) add(4, 'allow', { regexFilter: patternExpression(pattern) });
  for (const pattern of patterns(policy?.deny ?? []))
    add(5, 'block', { regexFilter: patternExpression(pattern) });
  return rules;
}

function api(): DeclarativeNetRequest {
  return (globalThis as unknown as { chrome: { declarativeNetRequest: DeclarativeNetRequest } }).chrome
    .declarativeNetRequest;
}

async function installedSiteRuleIds(): Promise<number[]> {
  return (await api().getSessionRules())
    .map((rule) => rule.id)
    .filter((ruleId) => ruleId >= FIRST_SITE_RULE_ID);
}

/** Replaces tabgate's site rules in one update (never a moment without them). Throws when Chrome refuses. */
export async function installSiteRules(rules: SiteRule[]): Promise<void> {
  await api().updateSessionRules({ removeRuleIds: await installedSiteRuleIds(), addRules: rules });
}

/** Removes them when the share ends. Never throws. */
export async function removeSiteRules(): Promise<void> {
  try {
    await api().updateSessionRules({ removeRuleIds: await installedSiteRuleIds() });
  } catch {
    // Gone already, or the browser is shutting down.
  }
}
