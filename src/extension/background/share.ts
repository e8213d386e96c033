/**
 * What the user shared, and the visible sign of it: the shared tabs sit in a tab group named after the
 * session and carry a badge. Tabs a shared tab opens join the share (and the group); closed tabs leave
 * it. The share itself is durable state, so a restarted worker knows it at once.
 */
import { chrome } from '../chrome-api.js';
import { readLocal, writeLocal, type Share } from './durable-state.js';
import { blockMetadata, unblockMetadata } from './metadata-rule.js';

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
): Promise<Share> {
  return serialized(async () => {
    // Before anything is shared: a browser that refuses the rules gets no share (metadata-rule.ts).
    await blockMetadata();
    const share: Share = withAgentIds({
      ...session,
      tab_ids: [tabId],
      active_tab_id: tabId,
      group_id: null,
    });
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
    if (!(await readLocal('share'))) return false;
    await blockMetadata();
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
    if (!share) return;
    for (const tabId of share.tab_ids) {
      await chrome.action.setBadgeText({ tabId, text: '' }).catch(() => undefined);
    }
    if (share.tab_ids.length > 0) await chrome.tabs.ungroup(share.tab_ids).catch(() => undefined);
  });
}
