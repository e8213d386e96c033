/**
 * `GET /v1/dashboard/events`: the dashboard's one live stream per tab (server-sent events, operator
 * credential). It carries the audit log as it grows (`audit`, each row's id as the event id, so a
 * reconnect with `Last-Event-ID` resumes after the last row it got and loses none; not with `?audit=0`,
 * for a tab whose view shows no audit rows), each action of the
 * session the tab follows as it starts and ends (`action`), session lines that changed (`session`,
 * `session-gone`), and new screenshots (`screenshot`). Each event becomes SSE text once, for every open
 * tab (dashboard-hub.ts). Back-pressured per tab (dashboard-stream.ts): while a tab's socket buffer is
 * full nothing is written to it; once it drains it writes what it missed, audit rows it can no longer
 * get from the hub are read from the log by its cursor, and if the hub dropped events it had not
 * written, it gets one `resync` event that tells the page to reload its lists, every session line
 * again, and each session's latest screenshot.
 */
import { TabgateError } from '../../../protocol/index.js';
import type { Caller } from '../../service.js';
import { SESSION_ID_PATTERN } from '../../sessions.js';
import { queryOf, type Route } from '../route-table.js';
import { DASHBOARD_API, type DashboardDeps } from './dashboard-api.js';
import { DashboardHub, TICK_MS } from './dashboard-hub.js';
import { DashboardStream } from './dashboard-stream.js';

const MAX_STREAMS = 16;

/** The cursor a reconnecting page sends: `Last-Event-ID`, else `?after=`; null for "from now on". */
export function resumeCursor(header: string | string[] | undefined, query: URLSearchParams): number | null {
  const raw = typeof header === 'string' ? header : query.get('after');
  if (raw === null || raw === undefined || raw === '') return null;
  if (!/^\d{1,15}$/.test(raw))
    throw new TabgateError('invalid_request', 'Last-Event-ID must be an audit row id.');
  return Number(raw);
}

/**
 * `?session=ID`: the session whose live view the tab shows, the one whose `action` events it is sent
 * (a tab that follows none gets none: its session lines already say what each session did last).
 */
export function followedSession(query: URLSearchParams): string | null {
  const raw = query.get('session');
  if (raw === null) return null;
  if (!SESSION_ID_PATTERN.test(raw))
    throw new TabgateError('invalid_request', 'session must be a session id.');
  return raw;
}

/**
 * `?audit=0`: the tab shows no view of the audit log (the sessions list, a session's live view), so its
 * stream carries no `audit` rows; absent or `1`, it carries them. Every call writes a row, and sent to
 * tabs that never show it, the rows were most of what open tabs cost the gateway: bench:controller's five
 * tabs on the sessions list, +11.1 µs of server CPU per call with them against +1.7 µs without.
 */
export function streamsAudit(query: URLSearchParams): boolean {
  const raw = query.get('audit');
  if (raw === null || raw === '1') return true;
  if (raw === '0') return false;
  throw new TabgateError('invalid_request', 'audit must be 0 or 1.');
}

/**
 * Every open stream, grouped by owner around one hub each (dashboard-hub.ts): five open tabs cost the
 * gateway about what one does, where each once stringified every event, read the audit log and summed
 * up its sessions by itself (bench:controller, "5 dashboard tabs open").
 */
export class DashboardStreams {
  private readonly hubs = new Map<string, Promise<DashboardHub>>();
  private readonly open = new Set<DashboardHub>();
  private count = 0;
  private readonly unsubscribe: () => void;
  private readonly unfollowSessions: () => void;

  constructor(private readonly d: DashboardDeps) {
    this.unsubscribe = d.activity.subscribe((entry) => {
      for (const hub of this.open) hub.action(entry);
    });
    this.unfollowSessions = d.sessions.changed.on((sessionId) => {
      for (const hub of this.open) hub.sessionChanged(sessionId);
    });
  }

  screenshot(sessionId: string, seq: number): void {
    for (const hub of this.open) hub.screenshot(sessionId, seq);
  }

  close(): void {
    this.unsubscribe();
    this.unfollowSessions();
    for (const hub of this.open) hub.close();
    this.open.clear();
    this.hubs.clear();
  }

  /** The owner's hub, opened with its first stream. */
  private async hubOf(owner: Caller): Promise<DashboardHub> {
    const id = owner.principalId;
    for (;;) {
      let opening = this.hubs.get(id);
      if (!opening) {
        const started = DashboardHub.open(this.d, owner);
        this.hubs.set(id, (opening = started));
        started.then(
          (hub) => this.open.add(hub),
          () => this.hubs.get(id) === started && this.hubs.delete(id),
        );
      }
      const hub = await opening;
      if (!hub.closed) return hub;
      // Its last stream closed while this one waited: open another.
      if (this.hubs.get(id) === opening) this.hubs.delete(id);
    }
  }

  private remove(hub: DashboardHub, stream: DashboardStream): void {
    stream.close();
    if (!hub.streams.delete(stream)) return;
    this.count--;
    this.releaseIfIdle(hub);
  }

  /** A hub without streams stops (no tab, no cost); the next stream opens a new one. */
  private releaseIfIdle(hub: DashboardHub): void {
    if (hub.streams.size > 0) return;
    hub.close();
    this.open.delete(hub);
  }

  routes(): Route[] {
    return [
      {
        method: 'GET',
        path: `${DASHBOARD_API}/events`,
        auth: 'operator',
        handle: async (ctx) => {
          if (!ctx.caller) throw new Error('route requires a caller');
          if (this.count >= MAX_STREAMS) {
            throw new TabgateError('rate_limited', 'Too many dashboard tabs are open; close some.', {
              retry_after_seconds: 5,
            });
          }
          const query = queryOf(ctx.req.url);
          const resume = resumeCursor(ctx.req.headers['last-event-id'], query);
          const follows = followedSession(query);
          const audit = streamsAudit(query);
          const owner = ctx.caller;
          const cursor = resume ?? (await this.d.audit.list({ limit: 1 })).at(-1)?.id ?? 0;
          const hub = await this.hubOf(owner);
          if (ctx.res.destroyed) {
            this.releaseIfIdle(hub);
            return;
          }
          ctx.res.writeHead(200, {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-store',
            'x-content-type-options': 'nosniff',
            connection: 'keep-alive',
          });
          // The first block names the row the stream starts after, as an event id: a tab that gets no
          // row before it reconnects (to follow another session, or after a drop) resumes from there.
          ctx.res.write(`retry: ${TICK_MS}\nid: ${cursor}\n\n${hub.lines.current()}`);
          // Lines as last sent may miss a change no event reported: the next batch reads them all.
          if (hub.streams.size > 0) hub.readAllLines();
          const stream = new DashboardStream(this.d, hub, ctx.res, cursor, { follows, audit });
          hub.streams.add(stream);
          this.count++;
          ctx.res.on('close', () => this.remove(hub, stream));
          stream.pump();
        },
      },
    ];
  }
}
