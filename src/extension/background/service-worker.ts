/**
 * The tabgate extension's service worker. Chrome stops it after ~30 s idle and starts it again for any
 * event, so everything here is idempotent: listeners are registered synchronously at the top level,
 * state lives in chrome.storage, and `wake()` (run at every start and by a 30 s alarm) reconnects the
 * share's controller and resumes a pairing in progress, whichever applies.
 */
import { chrome } from '../chrome-api.js';
import { ControllerLink } from './controller-link.js';
import { installDebuggerListeners } from './debugger-transport.js';
import { readLocal, readSession, writeSession } from './durable-state.js';
import { DownloadHolds } from './download-holds.js';
import { CommandExecutor, SNAPSHOT_MAX_CHARS } from './executor.js';
import { resumePairing } from './pairing-flow.js';
import { gatewayRefused, popupListener, type Parts } from './popup-requests.js';
import { adoptTab, forgetTab, guardLiveShare } from './share.js';
import { SharedTabs } from './shared-tabs.js';
import { loadSessionSites, SiteGuard } from './site-guard.js';
import { TabApprovals } from './tab-approvals.js';
import { TabDownloads } from './tab-downloads.js';

const WAKE_ALARM = 'tabgate-wake';
/** How often the shared session's sites are read again while a tab is shared. */
const SITES_EVERY_MS = 3000;

const tabs = new SharedTabs();
// The link delivers commands to the executor, and the executor answers through the link.
const link: ControllerLink = new ControllerLink({
  onCommand: (frame) => executor.handleCommand(frame.params),
  onCancel: (commandId) => executor.handleCancel(commandId),
  onRefused: async (error) => {
    await gatewayRefused(parts, error);
  },
  onDownloadAck: (ack) => downloads.onAck(ack),
});
const sites = new SiteGuard();
const approvals = new TabApprovals();
const downloads = new TabDownloads(approvals, (frame) => link.send(frame));
tabs.downloads = downloads;
tabs.judgeErrorPage = (url, frameId) => sites.errorPageRefusal(url, frameId);
const holds = new DownloadHolds(downloads);
const executor = new CommandExecutor(
  tabs,
  (frame) => link.send(frame),
  sites,
  approvals,
  SNAPSHOT_MAX_CHARS,
  { taken: downloads, holds },
);
const parts: Parts = { link, executor, tabs, sites, approvals };
// A takeover is the gateway's pause, not a protocol v1 command: the worker looks for one while sharing.
approvals.watch(async () => (await readLocal('share'))?.session_id ?? null);
// Grants made or revoked elsewhere (`tabgate grants`, the dashboard) reach the network rules within
// seconds while a tab is shared; the wake alarm does the same for a worker Chrome stopped and restarted.
setInterval(() => {
  void readLocal('share')
    .then((share) => (share ? loadSessionSites(share.session_id) : undefined))
    .catch(() => undefined);
}, SITES_EVERY_MS);

async function wake(reason: string): Promise<void> {
  if (await readLocal('pending_pairing')) void resumePairing();
  // A browser restart drops session rules but not the share: the rules are back before any command.
  if (await guardLiveShare()) {
    // Grants made or revoked while the worker was stopped reach the network rules before any command.
    const share = await readLocal('share');
    if (share) await loadSessionSites(share.session_id).catch(() => undefined);
    await link.ensure(reason);
  }
}

installDebuggerListeners();
holds.install();
chrome.runtime.onMessage.addListener(popupListener(parts));
// A notification of an approval opens the popup, where the person decides (never the page).
chrome.notifications?.onClicked.addListener(() => {
  void chrome.action.openPopup?.().catch(() => undefined);
});
chrome.alarms.onAlarm.addListener((alarm) => {
  if (alarm.name === WAKE_ALARM) void wake('alarm');
});
chrome.runtime.onStartup.addListener(() => void wake('browser-start'));
// Only a tab a shared page opened (a link's target, window.open) joins the share. chrome.tabs.onCreated's
// openerTabId is no proof of that: Chrome also sets it to the active tab for tabs opened by other means
// (seen with a tab made through DevTools' Target.createTarget while a shared tab was active), and a tab
// the user did not share must stay invisible to the agent.
chrome.webNavigation.onCreatedNavigationTarget.addListener(({ sourceTabId, tabId }) => {
  void adoptTab(tabId, sourceTabId).then((agentId) => {
    // Worded as the engine words it for every other backend.
    if (agentId !== null)
      tabs.notice(`A new tab ${agentId} opened (by the page); browser_tab_activate switches to it.`);
  });
});
chrome.tabs.onRemoved.addListener((tabId) => {
  void tabs.release(tabId).then(() => forgetTab(tabId));
});

void chrome.alarms.create(WAKE_ALARM, { periodInMinutes: 0.5 });
void (async () => {
  await writeSession('boot_count', (await readSession('boot_count')) + 1);
  await wake('worker-start');
})();
