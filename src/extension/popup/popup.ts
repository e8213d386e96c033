/**
 * The popup: connection state, pairing, the sessions that wait for a browser, one-click "Share this tab
 * with <session>", and Stop. It only renders and asks the worker; the worker owns all state.
 */
import { chrome } from '../chrome-api.js';
import type { PopupRequest, Response, StatusView } from '../messages.js';

interface SessionSummary {
  session_id: string;
  title: string | null;
}

const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;

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

function showError(message: string | null): void {
  $('error').hidden = message === null;
  $('error').textContent = message ?? '';
}

const CONNECTION_TEXT: Record<string, string> = {
  idle: 'not sharing',
  connecting: 'connecting…',
  connected: 'connected',
  offline: 'reconnecting…',
  stopped: 'stopped',
};

let shownSessions = '';

async function renderSessions(): Promise<void> {
  let sessions: SessionSummary[] = [];
  try {
    sessions = await ask<SessionSummary[]>({ type: 'sessions' });
  } catch (error) {
    showError((error as Error).message);
  }
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
    button.addEventListener('click', () => void share(session));
    const item = document.createElement('li');
    item.append(button);
    list.append(item);
  }
}

async function share(session: SessionSummary): Promise<void> {
  const tabId = await targetTabId();
  if (tabId === null) return showError('No tab to share.');
  try {
    render(
      await ask<StatusView>({
        type: 'share',
        session_id: session.session_id,
        title: session.title,
        tab_id: tabId,
      }),
    );
  } catch (error) {
    showError((error as Error).message);
  }
}

function render(view: StatusView): void {
  const state = view.share ? view.connection.state : 'idle';
  $('connection').textContent = CONNECTION_TEXT[state] ?? state;
  $('connection').className = `pill ${state}`;
  const problem =
    view.connection.state === 'stopped' || view.connection.state === 'offline' ? view.connection.error : null;
  showError(problem?.message ?? view.pairing_error?.message ?? null);
  $('unpaired').hidden = view.paired !== null || view.pending_pairing !== null;
  $<HTMLInputElement>('gateway-url').value = view.gateway_url;
  $('pairing').hidden = view.pending_pairing === null;
  if (view.pending_pairing) {
    $('code').textContent = view.pending_pairing.code;
    $('approve-command').textContent = `tabgate pair approve ${view.pending_pairing.code}`;
    $<HTMLAnchorElement>('approve-link').href = view.pending_pairing.approve_url;
  }
  $('paired-footer').hidden = view.paired === null;
  $('paired-as').textContent = view.paired ? `Paired as ${view.paired.name}` : '';
  $('shared').hidden = view.share === null;
  if (view.share) {
    $('shared-with').textContent = view.share.title?.trim() || view.share.session_id;
    $('shared-tabs').textContent = `${view.share.tab_ids.length} tab(s) shared`;
  }
  $('sessions-box').hidden = view.paired === null || view.share !== null;
}

async function refresh(): Promise<void> {
  const view = await ask<StatusView>({ type: 'status' });
  render(view);
  if (view.paired && !view.share) await renderSessions();
}

$('pair').addEventListener('click', () => {
  void (async () => {
    try {
      const url = $<HTMLInputElement>('gateway-url').value.trim();
      await ask({ type: 'set-gateway', url });
      render(await ask<StatusView>({ type: 'pair', open_approval_page: true }));
    } catch (error) {
      showError((error as Error).message);
    }
  })();
});
$('stop').addEventListener('click', () => void ask<StatusView>({ type: 'stop' }).then(refresh));
$('unpair').addEventListener('click', () => void ask<StatusView>({ type: 'unpair' }).then(refresh));

void refresh().catch((error: unknown) => showError((error as Error).message));
// The worker changes state on its own (approval arrives, reconnects): keep the view current.
setInterval(() => void refresh().catch(() => undefined), 1000);
