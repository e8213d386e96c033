/**
 * `GET /v1/dashboard/events`: the dashboard's one live stream per tab (server-sent events, operator
 * credential). It carries the audit log as it grows (`audit`, each row's id as the event id, so a
 * reconnect with `Last-Event-ID` resumes after the last row it got and loses none), each action as it
 * starts and ends (`action`), session lines whose status changed (`session`), and new screenshots
 * (`screenshot`). Back-pressured: while the socket's buffer is full nothing is written; audit rows are
 * read from the log by cursor when there is room, session lines are coalesced, and actions beyond a
 * small queue are dropped for one `resync` event that tells the page to reload its lists.
 */
import type { ServerResponse } from 'node:http';
import { TabgateError } from '../../../protocol/index.js';
import type { ActionEntry } from '../../activity/session-activity.js';
import type { Caller, SessionRecord } from '../../service.js';
import type { Route } from '../route-table.js';
import { DASHBOARD_API, summaryOf, type DashboardDeps } from './dashboard-api.js';

const MAX_STREAMS = 16;
const MAX_QUEUED_ACTIONS = 200;
const AUDIT_BATCH = 200;
/** Nothing is re-read on a timer faster than this; events wake the stream sooner. */
const TICK_MS = 1000;
const HEARTBEAT_MS = 15_000;
/** How long a woken stream waits for more events to write together. */
const COALESCE_MS = 25;
/** A pump's events are written together, up to about this many characters at a time. */
const BATCH_CHARS = 64 * 1024;

/** The cursor a reconnecting page sends: `Last-Event-ID`, else `?after=`; null for "from now on". */
export function resumeCursor(header: string | string[] | undefined, url: string | undefined): number | null {
  const raw =
    typeof header === 'string' ? header : new URLSearchParams(url?.split('?')[1] ?? '').get('after');
  if (raw === null || raw === undefined || raw === '') return null;
  if (!/^\d{1,15}$/.test(raw))
    throw new TabgateError('invalid_request', 'Last-Event-ID must be an audit row id.');
  return Number(raw);
}

const frame = (event: string, data: unknown, id?: number): string =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

class DashboardStream {
  private readonly actions: ActionEntry[] = [];
  private readonly shots = new Map<string, number>();
  private readonly sent = new Map<string, string>();
  /**
   * Sessions an action touched since their lines were last written; every session on the tick. Reading
   * and summing up every session after each action cost a gateway with 1,000 sessions and five
   * dashboard tabs 80 % of its calls per second (bench:controller).
   */
  private readonly touched = new Set<string>();
  private everySession = true;
  private resync = false;
  private batch = '';
  private wake: NodeJS.Timeout | null = null;
  private readonly tick: NodeJS.Timeout;
  private lastWrite = Date.now();
  /** A pump is reading the store; another asked meanwhile runs when it ends. */
  private pumping = false;
  private pumpAgain = false;
  closed = false;

  constructor(
    private readonly d: DashboardDeps,
    private readonly owner: Caller,
    private readonly res: ServerResponse,
    private cursor: number,
  ) {
    this.tick = setInterval(() => {
      this.everySession = true;
      this.pump();
    }, TICK_MS);
    res.on('drain', () => this.pump());
  }

  action(entry: ActionEntry): void {
    if (this.actions.length >= MAX_QUEUED_ACTIONS) this.resync = true;
    else this.actions.push(entry);
    this.touched.add(entry.session_id);
    this.soon();
  }

  screenshot(sessionId: string, seq: number): void {
    this.shots.set(sessionId, seq);
    this.soon();
  }

  close(): void {
    this.closed = true;
    clearInterval(this.tick);
    if (this.wake) clearTimeout(this.wake);
  }

  private soon(): void {
    this.wake ??= setTimeout(() => {
      this.wake = null;
      this.pump();
    }, COALESCE_MS);
  }

  /** Writes what is due while the socket takes it; stops at the first full buffer until 'drain'. */
  pump(): void {
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    this.pumpOnce()
      .catch(() => undefined)
      .finally(() => {
        this.flush();
        this.pumping = false;
        if (this.pumpAgain) {
          this.pumpAgain = false;
          this.pump();
        }
      });
  }

  private blocked(): boolean {
    return this.closed || this.res.writableNeedDrain;
  }

  private async pumpOnce(): Promise<void> {
    if (this.blocked()) return;
    if (this.resync) {
      this.resync = false;
      this.actions.length = 0;
      if (!this.write(frame('resync', {}))) return;
    }
    while (this.actions.length > 0) {
      const entry = this.actions.shift() as ActionEntry;
      if (!this.write(frame('action', entry))) return;
    }
    for (const [sessionId, seq] of this.shots) {
      this.shots.delete(sessionId);
      if (!this.write(frame('screenshot', { session_id: sessionId, seq }))) return;
    }
    if (!(await this.writeSessions())) return;
    for (;;) {
      const rows = await this.d.audit.list({ after: this.cursor, limit: AUDIT_BATCH });
      if (this.blocked()) return;
      for (const row of rows) {
        this.cursor = row.id;
        if (!this.write(frame('audit', row, row.id))) return;
      }
      if (rows.length < AUDIT_BATCH) break;
    }
    if (Date.now() - this.lastWrite > HEARTBEAT_MS) this.write(': heartbeat\n\n');
  }

  /**
   * Session lines that changed since last sent: of the sessions actions touched, or of all on the tick
   * (which also finds new ones, and sends a deleted session once as gone).
   */
  private async writeSessions(): Promise<boolean> {
    if (!this.everySession) {
      for (const id of [...this.touched]) {
        const record = await this.d.sessions.find(this.owner, id);
        if (this.blocked()) return false;
        this.touched.delete(id);
        // Gone: the tick's full pass says so.
        if (record && !this.writeSession(record)) return false;
      }
      return true;
    }
    const records = await this.d.sessions.list(this.owner);
    if (this.blocked()) return false;
    this.everySession = false;
    this.touched.clear();
    const seen = new Set<string>();
    for (const record of records) {
      seen.add(record.session_id);
      if (!this.writeSession(record)) return this.again();
    }
    for (const id of this.sent.keys()) {
      if (seen.has(id)) continue;
      this.sent.delete(id);
      if (!this.write(frame('session-gone', { session_id: id }))) return this.again();
    }
    return true;
  }

  /** A full pass cut short by a full buffer is done again in full once the socket drains. */
  private again(): false {
    this.everySession = true;
    return false;
  }

  /** The session's line if it changed; false when the socket's buffer is full. */
  private writeSession(record: SessionRecord): boolean {
    const text = JSON.stringify(summaryOf(this.d, record));
    if (this.sent.get(record.session_id) === text) return true;
    this.sent.set(record.session_id, text);
    return this.write(`event: session\ndata: ${text}\n\n`);
  }

  /** Queues `text` for this pump's one write; false once the socket's buffer is full. */
  private write(text: string): boolean {
    this.batch += text;
    return this.batch.length < BATCH_CHARS || this.flush();
  }

  /**
   * A burst goes out in one write: event by event, five open tabs made each agent call cost the
   * gateway some twenty socket writes (bench:controller, "5 dashboard tabs open").
   */
  private flush(): boolean {
    const text = this.batch;
    this.batch = '';
    if (text === '' || this.closed) return !this.blocked();
    this.lastWrite = Date.now();
    return this.res.write(text);
  }
}

export class DashboardStreams {
  private readonly streams = new Set<DashboardStream>();
  private readonly unsubscribe: () => void;

  constructor(private readonly d: DashboardDeps) {
    this.unsubscribe = d.activity.subscribe((entry) => {
      for (const stream of this.streams) stream.action(entry);
    });
  }

  screenshot(sessionId: string, seq: number): void {
    for (const stream of this.streams) stream.screenshot(sessionId, seq);
  }

  close(): void {
    this.unsubscribe();
    for (const stream of this.streams) stream.close();
    this.streams.clear();
  }

  routes(): Route[] {
    return [
      {
        method: 'GET',
        path: `${DASHBOARD_API}/events`,
        auth: 'operator',
        handle: async (ctx) => {
          if (!ctx.caller) throw new Error('route requires a caller');
          if (this.streams.size >= MAX_STREAMS) {
            throw new TabgateError('rate_limited', 'Too many dashboard tabs are open; close some.', {
              retry_after_seconds: 5,
            });
          }
          const resume = resumeCursor(ctx.req.headers['last-event-id'], ctx.req.url);
          const cursor = resume ?? (await this.d.audit.list({ limit: 1 })).at(-1)?.id ?? 0;
          ctx.res.writeHead(200, {
            'content-type': 'text/event-stream; charset=utf-8',
            'cache-control': 'no-store',
            'x-content-type-options': 'nosniff',
            connection: 'keep-alive',
          });
          ctx.res.write(`retry: ${TICK_MS}\n\n`);
          const stream = new DashboardStream(this.d, ctx.caller, ctx.res, cursor);
          this.streams.add(stream);
          ctx.res.on('close', () => {
            stream.close();
            this.streams.delete(stream);
          });
          stream.pump();
        },
      },
    ];
  }
}
