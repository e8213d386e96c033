/**
 * What the user shared, and the visible sign of it: the shared tabs sit in a tab group named after the
 * session and carry a badge. Tabs a shared tab opens join the share (and the group); closed tabs leave
 * it. The share itself is durable state, so a restarted worker knows it at once.
 */
import { chrome } from '../chrome-api.js';
import { readLocal, readSession, writeLocal, type Share } from './durable-state.js';
import { blockMetadata, unblockMetadata } from './metadata-rule.js';
import { FIRST_SITE_RULE_ID, installSiteRules, removeSiteRules, siteRulesFor } from './site-rules.js';

const BADGE = 'AI';

function groupTitle(share: Pick<Share, 'title' | 'session_id'>): string {
  const name = share.title?.trim() || share.session_id;
  return `tabgate: ${name.length > 40 ? `${name.slice(0, 39)}…` : name}`;
}

async function mark(tabId: number, share: Share): Promise<void> {
  await chrome.action.setBadgeText({ tabId, text: BADGE }).catch(() => undefined);
  await chrome.action.setBadgeBackgroundColor({ tabId, color: '#0b57d0' }).catch(() => undefined);
  await chrome.action
    .setTitle({ tabId, title: `Shared with ${groupTitle(share).slice(9)}` })
    .catch(() => undefined);
}

async function group(tabIds: number[], share: Share): Promise<number | null> {
  try {
    const groupId = await chrome.tabs.group(
      share.group_id !== null ? { tabIds, groupId: share.group_id } : { tabIds },
    );
    await chrome.tabs.group({ tabIds, groupId });
    await chrome.tabGroups.update(groupId, { title: groupTitle(share), color: 'blue' });
    return groupId;
  } catch {
    // The old group may be gone (its tabs were closed); start a new one.
    if (share.group_id === null) return null;
    return group(tabIds, { ...share, group_id: null });
  }
}

/**
 * Share changes are read-modify-write on chrome.storage, and tab events arrive while commands run: one
 * queue keeps them from overwriting each other, and lets a reader wait for what is already under way
 * (a tab the page just opened is listed by the next browser_tabs).
 */
let queue: Promise<unknown> = Promise.resolve();

function serialized<T>(change: () => Promise<T>): Promise<T> {
  const run = queue.then(change, change);
  queue = run.catch(() => undefined);
  return run;
}

/**
 * The site rules for the share as it is now: its tabs, the origin the user shared, and the policy the
 * gateway last gave for its session (none yet, or another session's: only the shared origin is open).
 */
async function guardSites(share: Share): Promise<void> {
  const stored = await readSession('site_policy');
  const newTabs = newTabGuard;
  const policy = stored?.session_id === share.session_id ? stored.policy : null;
  const shared = share.shared_origin ?? null;
  const rules = siteRulesFor(policy, { tabIds: share.tab_ids }, shared);
  if (newTabs && newTabs.until > Date.now()) {
    const excluded = newTabs.excludedTabIds.filter((tabId) => !share.tab_ids.includes(tabId));
    rules.push(
      ...siteRulesFor(policy, { excludedTabIds: excluded }, shared, FIRST_SITE_RULE_ID + rules.length),
    );
  }
  await installSiteRules(rules);
}

/** Installs the site rules again after the policy changed (site-guard.ts). */
export function refreshSiteRules(): Promise<void> {
  return serialized(async () => {
    const share = await readLocal('share');
    if (share) await guardSites(share);
  });
}

let newTabGuardTimer: ReturnType<typeof setTimeout> | null = null;
/**
 * The new-tab guard in force, in memory only: a worker Chrome restarted runs no action, and its wake
 * installs the rules again without it.
 */
let newTabGuard: { excludedTabIds: number[]; until: number } | null = null;

/**
 * Until `until`, every tab that does not exist yet is held to the session's policy too. A tab the shared
 * page opens (a link's target, `window.open`) sends its first request before Chrome has told anyone its
 * id, so no rule scoped by tab id can cover it; a rule over "every tab but the ones that existed" can.
 * A tab the person opens meanwhile is held to it as well, for those few seconds only.
 */
export function guardNewTabs(until: number): Promise<void> {
  const live = newTabGuard;
  if (live && live.until > Date.now()) {
    // Its rules already hold every tab made since it began: only its end moves, off the rules.
    live.until = until;
    scheduleGuardEnd(until);
    return Promise.resolve();
  }
  return serialized(async () => {
    const share = await readLocal('share');
    if (!share) return;
    const existing = (await chrome.tabs.query({})).flatMap((tab) => (tab.id === undefined ? [] : [tab.id]));
    newTabGuard = { excludedTabIds: existing, until };
    await guardSites(share);
    scheduleGuardEnd(until);
  });
}

/** When the guard ends, the rules are installed again without it. */
function scheduleGuardEnd(until: number): void {
  if (newTabGuardTimer !== null) clearTimeout(newTabGuardTimer);
  newTabGuardTimer = setTimeout(() => void refreshSiteRules(), Math.max(0, until - Date.now()) + 50);
  // Where timers can hold a process (Node, running these modules in tests), this one must not.
  (newTabGuardTimer as { unref?: () => void }).unref?.();
}

/** Resolves once every share change started so far is written. */
export function shareSettled(): Promise<void> {
  return serialized(async () => undefined);
}

/** Gives every shared tab its agent id (a share written before ids existed gets them in tab order). */
function withAgentIds(share: Share): Share & { agent_ids: Record<string, number>; next_agent_id: number } {
  const agentIds = share.agent_ids ?? {};
  let next = share.next_agent_id ?? 1;
  for (const tabId of share.tab_ids) agentIds[String(tabId)] ??= next++;
  return Object.assign(share, { agent_ids: agentIds, next_agent_id: next });
}

/** The id the agent knows this tab by. */
export function agentIdOf(share: Share, tabId: number): number {
  return withAgentIds(share).agent_ids[String(tabId)] ?? -1;
}

/** The chrome tab behind an agent's tab id, if that tab is in the share. */
export function tabIdOfAgentId(share: Share, agentId: number): number | null {
  const ids = withAgentIds(share).agent_ids;
  return share.tab_ids.find((tabId) => ids[String(tabId)] === agentId) ?? null;
}

export function startShare(
  session: { session_id: string; title: string | null },
  tabId: number,
  sharedOrigin: string | null,
): Promise<Share> {
  return serialized(async () => {
    // Before anything is shared: a browser that refuses the rules gets no share (metadata-rule.ts).
    await blockMetadata();
    const share: Share = withAgentIds({
      ...session,
      tab_ids: [tabId],
      active_tab_id: tabId,
      group_id: null,
      shared_origin: sharedOrigin,
    });
    await guardSites(share);
    share.group_id = await group([tabId], share);
    await mark(tabId, share);
    await writeLocal('share', share);
    return share;
  });
}

/**
 * Installs the metadata rules again if a share is live (a browser restart dropped them). In the share
 * queue, so it never re-installs them after a share that ended meanwhile; returns whether one is live.
 */
export function guardLiveShare(): Promise<boolean> {
  return serialized(async () => {
    const share = await readLocal('share');
    if (!share) return false;
    await blockMetadata();
    await guardSites(share);
    return true;
  });
}

/** A tab opened by a shared tab joins the share; returns the agent's id for it, or null. */
export function adoptTab(tabId: number, openerTabId: number | undefined): Promise<number | null> {
  return serialized(async () => {
    const share = await readLocal('share');
    if (
      !share ||
      openerTabId === undefined ||
      !share.tab_ids.includes(openerTabId) ||
      share.tab_ids.includes(tabId)
    ) {
      return null;
    }
    share.tab_ids.push(tabId);
    withAgentIds(share);
    // The rules first: the page may already be loading in the new tab.
    await guardSites(share);
    // Listed at once; the group and badge follow.
    await writeLocal('share', share);
    share.group_id = await group([tabId], share);
    await mark(tabId, share);
    await writeLocal('share', share);
    return agentIdOf(share, tabId);
  });
}

/** A closed tab leaves the share; the active tab moves to the most recent one left. */
export function forgetTab(tabId: number): Promise<Share | null> {
  return serialized(async () => {
    const share = await readLocal('share');
    if (!share?.tab_ids.includes(tabId)) return share;
    share.tab_ids = share.tab_ids.filter((id) => id !== tabId);
    if (share.active_tab_id === tabId) share.active_tab_id = share.tab_ids.at(-1) ?? -1;
    await writeLocal('share', share);
    // A rule naming a closed tab does no harm: a failure here is not worth failing the close for.
    await guardSites(share).catch(() => undefined);
    return share;
  });
}

export function setActiveTab(tabId: number): Promise<void> {
  return serialized(async () => {
    const share = await readLocal('share');
    if (!share) return;
    share.active_tab_id = tabId;
    await writeLocal('share', share);
  });
}

/** Ends the share: the group and badges go away, the tabs stay open. */
export function endShare(): Promise<void> {
  return serialized(async () => {
    const share = await readLocal('share');
    await writeLocal('share', null);
    await unblockMetadata();
    newTabGuard = null;
    await removeSiteRules();
    if (!share) return;
    for (const tabId of share.tab_ids) {
      await chrome.action.setBadgeText({ tabId, text: '' }).catch(() => undefined);
    }
    if (share.tab_ids.length > 0) await chrome.tabs.ungroup(share.tab_ids).catch(() => undefined);
  });
}
