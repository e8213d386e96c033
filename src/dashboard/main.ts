/**
 * The owner's dashboard (served at `/` by the gateway): Sessions, one session live, Approvals, Activity,
 * Browsers, Settings. It signs in only through the one-time link of `tabgate dashboard`; everything it
 * shows comes from the operator-only `/v1/dashboard/*` and `/v1/approvals` routes, kept current by one
 * live event stream per tab (and, for approvals, a look every second).
 */
import { html, render } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ActionEntry } from '../gateway/activity/session-activity.js';
import type { SessionSummary } from '../gateway/activity/session-summary.js';
import type { AuditEntry } from '../gateway/audit/audit-store.js';
import type { ToolName } from '../protocol/index.js';
import { ActivityView } from './activity-view.js';
import { ApprovalsView } from './approvals-view.js';
import { ApiError, getJson, setCsrfToken, signOut } from './api.js';
import { BrowsersView } from './browsers-view.js';
import { followEvents, type LiveStream } from './live-events.js';
import { SessionView } from './session-view.js';
import { SessionsView } from './sessions-view.js';
import { SettingsView } from './settings-view.js';

const MAX_AUDIT_SHOWN = 500;

const routeOf = () => (location.hash.replace(/^#\/?/, '') || 'sessions').split('/').map(decodeURIComponent);

function NotSignedIn() {
  return html`<main>
    <h1>tabgate dashboard</h1>
    <p>
      This browser is not signed in as the owner of this gateway. In the terminal where
      <code>tabgate serve</code> runs, run <code>tabgate dashboard</code> and open the link it prints (it
      works once, for 10 minutes).
    </p>
  </main>`;
}

function App() {
  const [signedIn, setSignedIn] = useState<boolean | null>(null);
  const [tools, setTools] = useState<ToolName[]>([]);
  const [route, setRoute] = useState(routeOf());
  const [sessions, setSessions] = useState<SessionSummary[]>([]);
  const [audit, setAudit] = useState<AuditEntry[]>([]);
  const [timelines, setTimelines] = useState<Record<string, ActionEntry[]>>({});
  const [shots, setShots] = useState<Record<string, number>>({});
  const [live, setLive] = useState(false);
  const [stream, setStream] = useState<LiveStream | null>(null);
  /** The session whose live view is open: its timeline is read again after a `resync`. */
  const shown = useRef<string | null>(null);

  const loadSessions = () =>
    getJson<{ sessions: SessionSummary[] }>('/v1/dashboard/sessions').then((b) => setSessions(b.sessions));

  useEffect(() => {
    const onHash = () => setRoute(routeOf());
    addEventListener('hashchange', onHash);
    let opened: LiveStream | null = null;
    void (async () => {
      try {
        const me = await getJson<{ csrf_token: string; tools: ToolName[] }>('/v1/dashboard/me');
        setCsrfToken(me.csrf_token);
        setTools(me.tools);
        setSignedIn(true);
      } catch (error) {
        if (error instanceof ApiError && error.code === 'operator_required') setSignedIn(false);
        return;
      }
      await loadSessions();
      // The rows of one read of the stream are added at once: a busy agent's burst (hundreds of rows
      // in one write) would otherwise copy the whole list once per row.
      let arrived: AuditEntry[] = [];
      const addRow = (row: AuditEntry) => {
        if (arrived.push(row) > 1) return;
        queueMicrotask(() => {
          const newestFirst = arrived.reverse();
          arrived = [];
          setAudit((rows) => [...newestFirst, ...rows].slice(0, MAX_AUDIT_SHOWN));
        });
      };
      opened = followEvents((e) => {
        if (e.event === 'audit') addRow(e.data as AuditEntry);
        else if (e.event === 'session') {
          const s = e.data as SessionSummary;
          setSessions((list) => {
            const at = list.findIndex((x) => x.session_id === s.session_id);
            return at === -1 ? [s, ...list] : list.map((x, i) => (i === at ? s : x));
          });
        } else if (e.event === 'session-gone') {
          const { session_id } = e.data as { session_id: string };
          setSessions((list) => list.filter((x) => x.session_id !== session_id));
        } else if (e.event === 'action') {
          const a = e.data as ActionEntry;
          setTimelines((all) => {
            const list = all[a.session_id];
            if (!list) return all;
            const at = list.findIndex((x) => x.seq === a.seq);
            const next = at === -1 ? [...list, a] : list.map((x, i) => (i === at ? a : x));
            return { ...all, [a.session_id]: next.slice(-100) };
          });
        } else if (e.event === 'screenshot') {
          const { session_id, seq } = e.data as { session_id: string; seq: number };
          setShots((all) => ({ ...all, [session_id]: seq }));
        } else if (e.event === 'resync') {
          void loadSessions();
          // Actions may have been dropped with the events this tab lost.
          if (shown.current !== null) void loadTimeline(shown.current);
        }
      }, setLive);
      setStream(opened);
    })();
    return () => {
      removeEventListener('hashchange', onHash);
      opened?.stop();
    };
  }, []);

  const loadTimeline = (sessionId: string) =>
    getJson<{ timeline: ActionEntry[] }>(`/v1/dashboard/sessions/${encodeURIComponent(sessionId)}`).then(
      (b) => setTimelines((all) => ({ ...all, [sessionId]: b.timeline })),
      () => undefined,
    );

  const [view, id] = route;
  // The stream carries the actions of the session whose live view is open, and no others; its timeline
  // is read once the stream follows it, so no action falls between the two. It carries the audit rows
  // only while the Activity view is open: entering it reads the newest rows, then the stream sends every
  // row after them.
  useEffect(() => {
    if (!stream) return;
    let current = true;
    const sessionId = view === 'sessions' && id ? id : null;
    shown.current = sessionId;
    if (view === 'activity') {
      void getJson<{ entries: AuditEntry[] }>('/v1/dashboard/activity').then(
        (first) => {
          if (!current) return;
          setAudit(first.entries);
          // An empty log: every row from the first.
          return stream.show({ session: null, auditAfter: first.entries[0]?.id ?? 0 });
        },
        () => undefined,
      );
    } else {
      void stream.show({ session: sessionId, auditAfter: null }).then(() => {
        if (sessionId !== null && shown.current === sessionId) void loadTimeline(sessionId);
      });
    }
    return () => {
      current = false;
    };
  }, [view, id, stream]);

  if (signedIn === null) return html`<p>Loading the tabgate dashboard…</p>`;
  if (!signedIn) return html`<${NotSignedIn} />`;
  const tab = (name: string, label: string) =>
    html`<a href=${`#/${name}`} aria-current=${view === name ? 'page' : undefined}>${label}</a>`;
  let body;
  if (view === 'sessions' && id)
    body = html`<${SessionView}
      session=${sessions.find((s) => s.session_id === id)}
      timeline=${timelines[id] ?? []}
      screenshotSeq=${shots[id] ?? 0}
      onChanged=${() => void loadSessions()}
    />`;
  else if (view === 'activity') body = html`<${ActivityView} entries=${audit} tools=${tools} />`;
  else if (view === 'approvals') body = html`<${ApprovalsView} />`;
  else if (view === 'browsers') body = html`<${BrowsersView} />`;
  else if (view === 'settings') body = html`<${SettingsView} />`;
  else body = html`<${SessionsView} sessions=${sessions} />`;
  return html`<header>
      <h1>tabgate</h1>
      <nav aria-label="Views">
        ${tab('sessions', 'Sessions')} ${tab('approvals', 'Approvals')} ${tab('activity', 'Activity')}
        ${tab('browsers', 'Browsers')} ${tab('settings', 'Settings')}
      </nav>
      <span class="live-state" role="status">${live ? 'live' : 'reconnecting…'}</span>
      <button type="button" onClick=${() => void signOut().then(() => setSignedIn(false))}>Sign out</button>
    </header>
    <main>${body}</main>`;
}

render(html`<${App} />`, document.getElementById('app') as HTMLElement);
