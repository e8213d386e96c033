/**
 * The owner's lines of the dashboard's sessions list, each kept as the SSE text every open tab is sent:
 * summed up and stringified once for all tabs, not once per tab. A line is read again only when told its
 * session changed (created, deleted, stopped, resumed, rebound, an action began or ended), and only the
 * lines whose text changed are sent; every session is read on the hub's slow full pass, which also finds
 * what no event reported. Nothing in a line depends on the time it is read (the page says how long ago),
 * so an idle gateway sends none.
 */
import type { Caller, SessionRecord } from '../../service.js';
import { summaryOf, type DashboardDeps } from './dashboard-api.js';

export const sseFrame = (event: string, data: unknown, id?: number): string =>
  `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

export class SessionLines {
  /** Session id → its `session` event, as last sent. */
  private readonly lines = new Map<string, string>();
  private readonly touched = new Set<string>();
  private everySession = true;

  constructor(
    private readonly d: DashboardDeps,
    private readonly owner: Caller,
  ) {}

  /** The session changed (or an action of it started or ended): its line is read again in the next batch. */
  touch(sessionId: string): void {
    this.touched.add(sessionId);
  }

  /** The next batch reads every session (the full pass). */
  readAll(): void {
    this.everySession = true;
  }

  /** Whether the session has a line (the owner's, not gone at the last read). */
  has(sessionId: string): boolean {
    return this.lines.has(sessionId);
  }

  /** Every line as it stands: where a newly opened tab, or one that lost events, starts from. */
  current(): string {
    return [...this.lines.values()].join('');
  }

  /** The `session` and `session-gone` events of what changed since the last call, in one text. */
  async changes(): Promise<string> {
    if (!this.everySession) {
      const ids = [...this.touched];
      this.touched.clear();
      let out = '';
      for (const id of ids) {
        const record = await this.d.sessions.find(this.owner, id);
        if (record) out += this.changed(record);
        // Deleted (or never the owner's, which has no line to take back).
        else if (this.lines.delete(id)) out += sseFrame('session-gone', { session_id: id });
      }
      return out;
    }
    this.everySession = false;
    this.touched.clear();
    const records = await this.d.sessions.list(this.owner);
    const seen = new Set<string>();
    let out = '';
    for (const record of records) {
      seen.add(record.session_id);
      out += this.changed(record);
    }
    for (const id of [...this.lines.keys()]) {
      if (seen.has(id)) continue;
      this.lines.delete(id);
      out += sseFrame('session-gone', { session_id: id });
    }
    return out;
  }

  /** The session's event if its line changed, else ''. */
  private changed(record: SessionRecord): string {
    const text = `event: session\ndata: ${JSON.stringify(summaryOf(this.d, record))}\n\n`;
    if (this.lines.get(record.session_id) === text) return '';
    this.lines.set(record.session_id, text);
    return text;
  }
}
