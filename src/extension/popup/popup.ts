/**
 * The popup: what state this browser is in, pairing (and cancelling it), the sessions that wait for a
 * browser, one-click "Share this tab with <session>", and Stop. It only renders and asks the worker; the
 * worker owns all state. The refresh loop keeps the status current; an error an action ran into stays
 * on screen until the next action or until the state moves on.
 */
import { chrome } from '../chrome-api.js';
import { parseGatewayAddress } from '../gateway-address.js';
import type { ApprovalsView, Phase, PopupRequest, Response, SitesView, StatusView } from '../messages.js';
import { approvalsChanged, renderApprovals } from './approvals.js';
import { heldPress, listsChanged } from './held-buttons.js';
import { renderSites, sitesChanged, type SiteDecision } from './sites.js';
import { $, render, stateProblem } from './view.js';

interface SessionSummary {
  session_id: string;
  title: string | null;
}

const REFRESH_MS = 1000;

async function ask<T>(request: PopupRequest): Promise<T> {
  const response = (await chrome.runtime.sendMessage(request)) as Response<T> | undefined;
  if (!response) throw new Error('The extension did not answer; reopen the popup.');
  if (!response.ok) throw new Error(response.error.message);
  return response.value;
}

/** The tab "this tab" means: `?tab=<id>` when opened as a page (tests), else the active tab. */
async function targetTabId(): Promise<number | null> {
  const fromQuery = Number(new URLSearchParams(location.search).get('tab'));
  if (Number.isInteger(fromQuery) && fromQuery > 0) return fromQuery;
  const [tab] = await chrome.tabs.query({ active: true, lastFocusedWindow: true });
  return tab?.id ?? null;
}

/** What went wrong, and in which phase: a change of phase (or the next action) clears it. */
const errors = {
  phase: null as Phase | null,
  action: null as string | null,
  field: null as string | null,
  sessions: null as string | null,
  state: null as string | null,
};

function paintErrors(): void {
  const general = errors.action ?? errors.sessions ?? errors.state;
  $('error').hidden = general === null;
  $('error').textContent = general ?? '';
  $('gateway-error').hidden = errors.field === null;
  $('gateway-error').textContent = errors.field ?? '';
}

function show(view: StatusView): void {
  if (view.phase !== errors.phase) {
    errors.action = errors.field = errors.sessions = null;
    errors.phase = view.phase;
  }
  errors.state = stateProblem(view);
  render(view);
  paintErrors();
}

/** Bumped by every action, so a refresh that started before it cannot draw the state it replaced. */
let actions = 0;

/** Runs one button's action; its failure is shown where `where` says, and stays. */
async function act(where: 'action' | 'field', action: () => Promise<StatusView>): Promise<void> {
  actions++;
  errors.action = errors.field = null;
  paintErrors();
  try {
    show(await action());
  } catch (error) {
    errors[where] = (error as Error).message;
    paintErrors();
  }
}

let shownSessions = '';

/** The sessions that wait for a browser, or the reason they could not be read (shown, and kept). */
async function readSessions(): Promise<SessionSummary[] | null> {
  try {
    const sessions = await ask<SessionSummary[]>({ type: 'sessions' });
    errors.sessions = null;
    return sessions;
  } catch (error) {
    errors.sessions = (error as Error).message;
    return null;
  }
}

function renderSessions(sessions: SessionSummary[] | null): void {
  if (sessions === null) {
    paintErrors();
    return;
  }
  paintErrors();
  // Re-render only on change, so a button never moves under the pointer.
  const key = JSON.stringify(sessions.map((s) => [s.session_id, s.title]));
  if (key === shownSessions) return;
  shownSessions = key;
  const list = $('sessions');
  list.replaceChildren();
  $('no-sessions').hidden = sessions.length > 0;
  for (const session of sessions.slice(0, 20)) {
    const name = session.title?.trim() || session.session_id;
    const button = document.createElement('button');
    button.type = 'button';
    button.dataset.sessionId = session.session_id;
    button.textContent = `Share this tab with ${name}`;
    button.addEventListener('click', (event) => {
      if (!heldPress(event)) void act('action', () => share(session));
    });
    const item = document.createElement('li');
    item.append(button);
    list.append(item);
  }
  listsChanged();
}

async function share(session: SessionSummary): Promise<StatusView> {
  const tabId = await targetTabId();
  if (tabId === null) throw new Error('No tab to share.');
  return ask<StatusView>({
    type: 'share',
    session_id: session.session_id,
    title: session.title,
    tab_id: tabId,
  });
}

async function refreshSites(): Promise<void> {
  try {
    renderSites(await ask<SitesView & { shared_origin: string | null }>({ type: 'sites' }), decideSite);
  } catch (error) {
    errors.sessions = (error as Error).message;
    paintErrors();
  }
}

function decideSite(decision: SiteDecision, site: string): void {
  void act('action', async () => {
    await ask({ type: 'decide-site', decision, site });
    sitesChanged();
    await refreshSites();
    return ask<StatusView>({ type: 'status' });
  });
}

async function refreshApprovals(): Promise<void> {
  try {
    renderApprovals(await ask<ApprovalsView>({ type: 'approvals' }), decideApproval);
  } catch (error) {
    errors.sessions = (error as Error).message;
    paintErrors();
  }
}

function decideApproval(approvalId: string, approve: boolean): void {
  void act('action', async () => {
    renderApprovals(
      await ask<ApprovalsView>({ type: 'decide-approval', approval_id: approvalId, approve }),
      decideApproval,
    );
    return ask<StatusView>({ type: 'status' });
  });
}

function stopOrResume(stop: boolean): void {
  void act('action', async () => {
    approvalsChanged();
    renderApprovals(await ask<ApprovalsView>({ type: stop ? 'stop-agent' : 'resume-agent' }), decideApproval);
    return ask<StatusView>({ type: 'status' });
  });
}

/** Checked here first, so a malformed address is named next to the field before anything is sent. */
async function pair(): Promise<StatusView> {
  const address = parseGatewayAddress($<HTMLInputElement>('gateway-url').value);
  if (!address.ok) throw new Error(address.message);
  return ask<StatusView>({ type: 'pair', gateway_url: address.url, open_approval_page: true });
}

let refreshing = false;

async function refresh(): Promise<void> {
  if (refreshing) return;
  refreshing = true;
  const before = actions;
  try {
    const view = await ask<StatusView>({ type: 'status', probe: true });
    // Read before anything is drawn: the list and the status paint together, so the buttons below the
    // list (Unpair) are not moved under a pointer by a list that arrives a moment later.
    const sessions = view.phase === 'paired' ? await readSessions() : null;
    if (before !== actions) return;
    show(view);
    if (view.phase === 'paired') renderSessions(sessions);
    if (view.phase === 'sharing') await Promise.all([refreshSites(), refreshApprovals()]);
  } catch (error) {
    errors.state = (error as Error).message;
    paintErrors();
  } finally {
    refreshing = false;
  }
}

$('pair').addEventListener('click', () => void act('field', pair));
$('cancel-pairing').addEventListener(
  'click',
  () => void act('action', () => ask({ type: 'cancel-pairing' })),
);
$('stop').addEventListener('click', () => void act('action', () => ask({ type: 'stop' })));
$('stop-agent').addEventListener('click', () => stopOrResume(true));
$('resume-agent').addEventListener('click', () => stopOrResume(false));
$('unpair').addEventListener('click', () => void act('action', () => ask({ type: 'unpair' })));

void refresh();
// The worker changes state on its own (approval arrives, reconnects, revocation): keep the view current.
setInterval(() => void refresh(), REFRESH_MS);
