/**
 * What the user shared, and the visible sign of it: the shared tabs sit in a tab group named after the
 * session and carry a badge. Tabs a shared tab opens join the share (and the group); closed tabs leave
 * it. The share itself is durable state, so a restarted worker knows it at once.
 */
import { chrome } from '../chrome-api.js';
import { readLocal, writeLocal, type Share } from './durable-state.js';

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

export async function startShare(
  session: { session_id: string; title: string | null },
  tabId: number,
): Promise<Share> {
  const share: Share = { ...session, tab_ids: [tabId], active_tab_id: tabId, group_id: null };
  share.group_id = await group([tabId], share);
  await mark(tabId, share);
  await writeLocal('share', share);
  return share;
}

/** A tab opened by a shared tab joins the share. */
export async function adoptTab(tabId: number, openerTabId: number | undefined): Promise<boolean> {
  const share = await readLocal('share');
  if (
    !share ||
    openerTabId === undefined ||
    !share.tab_ids.includes(openerTabId) ||
    share.tab_ids.includes(tabId)
  ) {
    return false;
  }
  share.tab_ids.push(tabId);
  share.group_id = await group([tabId], share);
  await mark(tabId, share);
  await writeLocal('share', share);
  return true;
}

/** A closed tab leaves the share; the active tab moves to the most recent one left. */
export async function forgetTab(tabId: number): Promise<Share | null> {
  const share = await readLocal('share');
  if (!share?.tab_ids.includes(tabId)) return share;
  share.tab_ids = share.tab_ids.filter((id) => id !== tabId);
  if (share.active_tab_id === tabId) share.active_tab_id = share.tab_ids.at(-1) ?? -1;
  await writeLocal('share', share);
  return share;
}

export async function setActiveTab(tabId: number): Promise<void> {
  const share = await readLocal('share');
  if (!share) return;
  share.active_tab_id = tabId;
  await writeLocal('share', share);
}

/** Ends the share: the group and badges go away, the tabs stay open. */
export async function endShare(): Promise<void> {
  const share = await readLocal('share');
  await writeLocal('share', null);
  if (!share) return;
  for (const tabId of share.tab_ids) {
    await chrome.action.setBadgeText({ tabId, text: '' }).catch(() => undefined);
  }
  if (share.tab_ids.length > 0) await chrome.tabs.ungroup(share.tab_ids).catch(() => undefined);
}
