/**
 * One dashboard tab's event stream: writes the hub's chunks in order, each in one write, while its
 * socket takes them; stops at a full buffer until 'drain'. Its own state is only where it is: the next
 * chunk, the last audit row it sent (the cursor a reconnect resumes from), and the session it follows
 * (whose actions it is sent). Rows the hub's chunks do not cover for it (a resumed stream's older rows,
 * or rows of chunks dropped while it was stuck) it reads from the audit log by that cursor, so none is
 * lost and none sent twice. A stream whose tab shows no audit rows (`?audit=0`) is sent none, and never
 * reads the log.
 */
import type { ServerResponse } from 'node:http';
import { AUDIT_BATCH, type Chunk, type DashboardHub, type HubStream } from './dashboard-hub.js';
import { auditEventOf } from './dashboard-audit-event.js';
import type { DashboardDeps } from './dashboard-api.js';
import { OneAtATime } from './one-at-a-time.js';

const HEARTBEAT_MS = 15_000;

export class DashboardStream implements HubStream {
  next: number;
  private lastWrite = Date.now();
  /** A pump may read the log; one asked meanwhile runs when it ends. */
  private readonly pumping = new OneAtATime(() => this.pumpOnce());
  private closed = false;

  constructor(
    private readonly d: DashboardDeps,
    private readonly hub: DashboardHub,
    private readonly res: ServerResponse,
    /** The last audit row sent. */
    private cursor: number,
    private readonly view: {
      /** The session whose actions the stream is sent (its tab shows that session), if any. */
      follows: string | null;
      /** Whether the stream is sent the audit rows (its tab shows them); without, the cursor stands still. */
      audit: boolean;
    } = { follows: null, audit: true },
  ) {
    this.next = hub.end;
    res.on('drain', () => this.pump());
  }

  get follows(): string | null {
    return this.view.follows;
  }

  get auditCursor(): number | null {
    return this.view.audit ? this.cursor : null;
  }

  close(): void {
    this.closed = true;
  }

  /** Writes what is due while the socket takes it. */
  pump(): void {
    this.pumping.run();
  }

  private blocked(): boolean {
    return this.closed || this.res.writableNeedDrain;
  }

  private async pumpOnce(): Promise<void> {
    for (;;) {
      if (this.blocked()) return;
      if (this.next < this.hub.start) {
        // Stuck while the hub dropped chunks this stream needed: the page reloads its lists, the
        // session lines and screenshots start over, the audit rows come from the log below.
        this.next = this.hub.end;
        // The lines it starts over from are read again with the next batch, against a missed event.
        this.hub.readAllLines();
        if (!this.write(this.hub.resyncText())) return;
        continue;
      }
      const chunk = this.hub.chunk(this.next);
      if (!chunk) break;
      if (this.view.audit && this.cursor < chunk.auditAfter) {
        if (!(await this.catchUp(chunk.auditAfter))) return;
        continue;
      }
      this.next++;
      const written = this.write(this.textOf(chunk));
      if (this.view.audit) this.cursor = Math.max(this.cursor, chunk.audits.at(-1)?.id ?? 0);
      if (!written) return;
    }
    if (this.view.audit && !(await this.catchUp(this.hub.auditCursor))) return;
    if (Date.now() - this.lastWrite > HEARTBEAT_MS) this.write(': heartbeat\n\n');
  }

  /**
   * The chunk as this stream needs it: its session's actions, and every row when it has every row before
   * the chunk's (then, following no session, the text all such tabs share), else without rows it has;
   * without rows at all for a stream sent none (then, following no session, the text all those share).
   */
  private textOf(chunk: Chunk): Buffer | string {
    const actions = this.follows === null ? '' : (chunk.actions.get(this.follows) ?? '');
    if (!this.view.audit)
      return actions === ''
        ? (chunk.bare ??= Buffer.from(chunk.lead + chunk.head))
        : chunk.lead + actions + chunk.head;
    const whole = this.cursor === chunk.auditAfter;
    if (whole && actions === '')
      return (chunk.whole ??= Buffer.from(
        chunk.lead + chunk.head + chunk.audits.map((row) => row.text).join(''),
      ));
    const rows = whole ? chunk.audits : chunk.audits.filter((row) => row.id > this.cursor);
    return chunk.lead + actions + chunk.head + rows.map((row) => row.text).join('');
  }

  /** Sends the log's rows after the cursor up to `upto`; false once the socket's buffer is full. */
  private async catchUp(upto: number): Promise<boolean> {
    while (this.cursor < upto) {
      const rows = await this.d.audit.list({ after: this.cursor, limit: AUDIT_BATCH });
      if (this.blocked()) return false;
      let text = '';
      for (const row of rows) {
        if (row.id > upto) break;
        text += auditEventOf(row);
        this.cursor = row.id;
      }
      const written = this.write(text);
      if (rows.length < AUDIT_BATCH || (rows.at(-1)?.id ?? 0) > upto) break;
      if (!written) return false;
    }
    // Every row up to `upto` is sent (rows purged meanwhile are simply not there).
    this.cursor = Math.max(this.cursor, upto);
    return !this.blocked();
  }

  private write(text: Buffer | string): boolean {
    if (text.length === 0 || this.closed) return !this.blocked();
    this.lastWrite = Date.now();
    return this.res.write(text);
  }
}
