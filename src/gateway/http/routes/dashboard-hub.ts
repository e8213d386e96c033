/**
 * What every open dashboard tab of one owner is sent, built once for all of them. Events (actions,
 * screenshots, session lines that changed, new audit rows) are gathered for 25 ms (under load, chunks leave
 * 100 ms apart), then turned into one `Chunk` of SSE text: each action stringified once, session lines
 * summed up once, audit rows turned into text once for all tabs. Actions go only to the tabs that follow
 * their session (its live view is open there): they are the one event every call makes that only such a tab
 * shows, so the hub keeps none of a session no tab follows. The rows come from the fold that wrote them
 * (AuditLog.onFolded), not read back; the log is read only where that could miss one: on the tick, when the
 * ids handed over skip one (a row written by another path), and with a shared store (other gateways' rows).
 * Each tab's stream (dashboard-stream.ts) writes the same chunks in order at its own pace; the hub keeps
 * the chunks some tab has not written yet, up to a bound, beyond which a slow tab falls back to its own
 * cursor in the audit log and a `resync`.
 */
import type { ActionEntry } from '../../activity/session-activity.js';
import { every, systemTimers, type Timer, type TimerClock } from '../../clock.js';
import type { Caller } from '../../service.js';
import type { InsertedAuditRow } from '../../store/store.js';
import type { DashboardDeps } from './dashboard-api.js';
import { AuditEvents, auditEventOf } from './dashboard-audit-event.js';
import { SessionLines, sseFrame } from './dashboard-session-lines.js';
import { OneAtATime } from './one-at-a-time.js';

/** Nothing is re-read on a timer faster than this; events wake the hub sooner. */
export const TICK_MS = 1000;
/**
 * How often every session line is read again though no event said it changed. Lines follow events
 * (Sessions.changed, the activity); this pass is the safety net for a change no event reported (a write
 * that bypassed Sessions, a backend's browser details, a listener that failed), so a missed one is shown
 * within this, and not at the cost of listing and summing up every session each second (with 1,000
 * sessions that pass was most of an idle tab's cost). A new tab and a resync also ask for it.
 */
export const FULL_PASS_MS = 15_000;
export const AUDIT_BATCH = 200;
/** How long the hub waits after an event for more to send together. */
const COALESCE_MS = 25;
/**
 * Under a steady stream of calls, at most one chunk this often: what the open tabs cost (a chunk built,
 * one write per tab, one read in each browser) then stays flat however many calls a second the gateway
 * serves, instead of one chunk per 25 ms. A first event after a quiet spell still leaves after
 * COALESCE_MS.
 */
const MIN_CHUNK_INTERVAL_MS = 100;
/**
 * With a shared store, how long after a call ends the hub reads the audit log. It reads only the rows
 * already folded from the journal (which folds within 50 ms of a call's end): reading with `list` folds
 * first, and a read every 25 ms made the journal fold twice as often as its own timer does.
 */
const AUDIT_READ_MS = 75;
/** Actions waiting for the next batch beyond this are dropped for one `resync`. */
const MAX_PENDING_ACTIONS = 5000;
/** Rows handed over beyond this are dropped, and the next batch reads the log instead. */
const MAX_PENDING_AUDITS = 5000;
/** The chunks kept for tabs that have not written them yet, in characters, across all tabs. */
const MAX_KEPT_CHARS = 2 * 1024 * 1024;

/** One batch of events, as SSE text. */
export interface Chunk {
  /** A `resync`, when actions were dropped: the same for every tab. */
  lead: string;
  /** The `action` events of each followed session, for the tabs that follow it. */
  actions: ReadonlyMap<string, string>;
  /** The `screenshot`, `session` and `session-gone` events: the same for every tab. */
  head: string;
  /** The audit rows read for this batch, in id order, each with its event. */
  audits: { id: number; text: string }[];
  /** The last audit row id before this batch's: a tab that has every row up to here takes the chunk whole. */
  auditAfter: number;
  chars: number;
  /** The chunk without actions, encoded once for every tab that follows no session and takes it whole. */
  whole: Buffer | null;
  /** The chunk without actions or audit rows, encoded once for every tab sent neither (`?audit=0`). */
  bare: Buffer | null;
}

/** What the hub asks of each tab's stream. */
export interface HubStream {
  /** The sequence number of the next chunk the stream writes. */
  readonly next: number;
  /** The session whose actions the stream is sent (its tab shows that session), if any. */
  readonly follows: string | null;
  /** The last audit row the stream has sent; null when its tab shows no audit rows (`?audit=0`). */
  readonly auditCursor: number | null;
  pump(): void;
  close(): void;
}

export class DashboardHub {
  readonly streams = new Set<HubStream>();
  readonly lines: SessionLines;
  private readonly chunks: Chunk[] = [];
  /** The sequence number of `chunks[0]`. */
  private first = 0;
  private keptChars = 0;
  /** In the order they started: one that also ended meanwhile is sent once, as it stands. */
  private pendingActions = new Set<ActionEntry>();
  private droppedActions = false;
  private pendingShots = new Map<string, number>();
  /** Each session's latest `screenshot` event, for a stream that lost events (`resyncText`). */
  private readonly shotEvents = new Map<string, string>();
  /** Rows the fold handed over since the last batch, in id order. */
  private pendingAudits: InsertedAuditRow[] = [];
  private readonly auditEvents = new AuditEvents();
  /** Stops the hand-over; null when the store cannot hand rows over (shared), and the log is read. */
  private readonly unfollowFolds: (() => void) | null;
  /** The gateway's timers: a test steps them by hand. */
  private readonly timers: TimerClock;
  private wake: Timer | null = null;
  /** When the last batch began (the timers' time). */
  private lastFlushAt = -Infinity;
  private auditWake: Timer | null = null;
  /** The next batch reads the audit log. */
  private auditDue = true;
  private readonly tick: Timer;
  /** Null with a shared store, whose tick is the full pass. */
  private readonly fullPass: Timer | null;
  /** Builds the next chunk from what is pending, then has every stream write what it can. */
  private readonly flushing = new OneAtATime(
    () => this.build(),
    () => {
      if (this.closed) return false;
      for (const stream of this.streams) stream.pump();
      this.trim();
      return true;
    },
  );
  closed = false;

  /**
   * Opens a hub whose audit cursor starts at the log's last row, with every session line read: a tab's
   * first write carries them, rather than the first batch after it (which also kept the page's first
   * paint waiting).
   */
  static async open(d: DashboardDeps, owner: Caller): Promise<DashboardHub> {
    const last = (await d.audit.list({ limit: 1 })).at(-1)?.id ?? 0;
    const hub = new DashboardHub(d, owner, last);
    try {
      await hub.lines.changes();
    } catch (error) {
      hub.close();
      throw error;
    }
    return hub;
  }

  private constructor(
    private readonly d: DashboardDeps,
    owner: Caller,
    /** The last audit row the hub has read. */
    public auditCursor: number,
  ) {
    this.timers = d.timers ?? systemTimers;
    this.lines = new SessionLines(d, owner);
    this.unfollowFolds = d.audit.onFolded((rows) => {
      if (this.pendingAudits.length + rows.length > MAX_PENDING_AUDITS) {
        this.pendingAudits = [];
        this.auditDue = true;
      } else for (const row of rows) this.pendingAudits.push(row);
      this.soon();
    });
    // A shared store's sessions change on other gateways too, which no event here reports: there every
    // tick is a full pass.
    const shared = !this.unfollowFolds;
    this.tick = every(this.timers, TICK_MS, () => {
      if (shared) this.lines.readAll();
      this.auditDue = true;
      this.flush();
    });
    this.fullPass = shared ? null : every(this.timers, FULL_PASS_MS, () => this.readAllLines());
    // The first batch reads the log once, for rows folded before the hand-over began.
    this.soon();
  }

  /** The sequence number the next chunk will have. */
  get end(): number {
    return this.first + this.chunks.length;
  }

  /** The oldest chunk still kept; a stream behind it has lost events. */
  get start(): number {
    return this.first;
  }

  chunk(seq: number): Chunk | undefined {
    return this.chunks[seq - this.first];
  }

  /** What a stream that lost events is sent: `resync`, then every session line and latest screenshot. */
  resyncText(): string {
    return sseFrame('resync', {}) + this.lines.current() + [...this.shotEvents.values()].join('');
  }

  /**
   * The row after which the open streams still need rows from the hub: the oldest cursor of those whose
   * tab shows audit rows; null when none does (at most 16 streams: a look at each).
   */
  private rowsNeededAfter(): number | null {
    let after: number | null = null;
    for (const { auditCursor } of this.streams)
      if (auditCursor !== null && (after === null || auditCursor < after)) after = auditCursor;
    return after;
  }

  /** Whether an open stream follows the session (at most 16 streams: a look at each). */
  private followed(sessionId: string): boolean {
    for (const stream of this.streams) if (stream.follows === sessionId) return true;
    return false;
  }

  action(entry: ActionEntry): void {
    // Its session's line shows the last action, in every tab; the action itself only where followed.
    this.lines.touch(entry.session_id);
    this.soon();
    // A tab that follows the session later reads its timeline first: nothing is kept for it meanwhile.
    if (this.followed(entry.session_id)) {
      if (this.pendingActions.size < MAX_PENDING_ACTIONS || this.pendingActions.has(entry))
        this.pendingActions.add(entry);
      else this.droppedActions = true;
    }
    if (entry.outcome !== null && !this.unfollowFolds)
      this.auditWake ??= this.timers.setTimer(() => {
        this.auditWake = null;
        this.auditDue = true;
        this.flush();
      }, AUDIT_READ_MS);
  }

  /** The session was created, deleted, stopped, resumed or rebound: its line is read in the next batch. */
  sessionChanged(sessionId: string): void {
    this.lines.touch(sessionId);
    this.soon();
  }

  /** The next batch reads every session line (the full pass, also for a new tab or a resync). */
  readAllLines(): void {
    this.lines.readAll();
    this.soon();
  }

  screenshot(sessionId: string, seq: number): void {
    this.pendingShots.set(sessionId, seq);
    this.soon();
  }

  close(): void {
    this.closed = true;
    this.unfollowFolds?.();
    this.tick.cancel();
    this.fullPass?.cancel();
    this.wake?.cancel();
    this.auditWake?.cancel();
    for (const stream of this.streams) stream.close();
    this.streams.clear();
  }

  private soon(): void {
    if (this.wake) return;
    const wait = Math.max(COALESCE_MS, this.lastFlushAt + MIN_CHUNK_INTERVAL_MS - this.timers.now());
    this.wake = this.timers.setTimer(() => {
      this.wake = null;
      this.flush();
    }, wait);
  }

  private flush(): void {
    this.lastFlushAt = this.timers.now();
    this.flushing.run();
  }

  private async build(): Promise<void> {
    const lead = this.droppedActions ? sseFrame('resync', {}) : '';
    this.droppedActions = false;
    // An action that started and ended within the batch is one object: sent once, as it stands now, as
    // a tab reading it at this moment would have it (the page keeps an action by its `seq`).
    const actions = new Map<string, string>();
    let actionChars = 0;
    for (const entry of this.pendingActions) {
      const text = sseFrame('action', entry);
      actions.set(entry.session_id, (actions.get(entry.session_id) ?? '') + text);
      actionChars += text.length;
    }
    this.pendingActions = new Set();
    let head = '';
    for (const [sessionId, seq] of this.pendingShots) {
      const text = sseFrame('screenshot', { session_id: sessionId, seq });
      this.shotEvents.set(sessionId, text);
      head += text;
    }
    this.pendingShots = new Map();
    head += await this.lines.changes();
    // Kept only for sessions still listed (a session gone, or another owner's, has no picture to catch up).
    for (const sessionId of this.shotEvents.keys())
      if (!this.lines.has(sessionId)) this.shotEvents.delete(sessionId);
    const needed = this.rowsNeededAfter();
    // No open tab shows audit rows (the sessions list, a live view, settings: `?audit=0`): none is turned
    // into text or read back, though every call writes one (five tabs on the sessions list in
    // bench:controller: the tabs then cost the gateway no more than their session lines). A tab that shows
    // rows later starts from its own cursor; the hub's moves up to it.
    if (needed === null) this.pendingAudits = [];
    const auditAfter = Math.max(this.auditCursor, needed ?? 0);
    const audits =
      needed === null ? [] : (this.handedAudits(auditAfter) ?? (await this.readAudits(auditAfter)));
    // Moved only with the chunk that has the rows: a stream pumping meanwhile must not read them itself.
    this.auditCursor = audits.at(-1)?.id ?? auditAfter;
    if (lead === '' && actions.size === 0 && head === '' && audits.length === 0) return;
    const chars = audits.reduce((sum, row) => sum + row.text.length, lead.length + actionChars + head.length);
    this.chunks.push({ lead, actions, head, audits, auditAfter, chars, whole: null, bare: null });
    this.keptChars += chars;
  }

  /**
   * The events of the rows handed over since the last batch, if they follow `after` without a hole;
   * null when the log must be read instead (the tick, a hole, rows dropped), which has them too.
   */
  private handedAudits(after: number): Chunk['audits'] | null {
    const handed = this.pendingAudits;
    this.pendingAudits = [];
    if (this.auditDue) return null;
    const audits: Chunk['audits'] = [];
    let cursor = after;
    for (const row of handed) {
      // Read already, by the batch that read the log.
      if (row.id <= cursor) continue;
      // A row between them was written by another path: only the log has it.
      if (row.id !== cursor + 1) return null;
      audits.push({ id: row.id, text: this.auditEvents.ofFolded(row) });
      cursor = row.id;
    }
    return audits;
  }

  /** Every row after `after` the log holds now. */
  private async readAudits(after: number): Promise<Chunk['audits']> {
    this.auditDue = false;
    const audits: Chunk['audits'] = [];
    let cursor = after;
    for (;;) {
      const rows = await this.d.audit.listFolded({ after: cursor, limit: AUDIT_BATCH });
      for (const row of rows) audits.push({ id: row.id, text: auditEventOf(row) });
      cursor = rows.at(-1)?.id ?? cursor;
      if (rows.length < AUDIT_BATCH) return audits;
    }
  }

  /** Drops the chunks every stream has written, and the oldest beyond the bound (their slow streams resync). */
  private trim(): void {
    let needed = this.end;
    for (const stream of this.streams) needed = Math.min(needed, stream.next);
    while (this.chunks.length > 0 && (this.first < needed || this.keptChars > MAX_KEPT_CHARS)) {
      this.keptChars -= (this.chunks.shift() as Chunk).chars;
      this.first++;
    }
  }
}
