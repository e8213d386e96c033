/**
 * The approvals the gateway holds (docs/safety.md "Approvals"), in memory: an approval approves one
 * action while the gateway runs, so none outlives it. Each record is bound to `{session, tool, argument
 * hash, ref, frame origin, expiry}` and moves one way only: pending → approved | denied | expired, then
 * approved → used | expired. A decision wakes the call that waits for it.
 *
 * In a cluster every node holds a replica of the cluster's book (src/gateway/cluster/shared-approvals.ts):
 * reads stay in memory, and the two steps that must happen once across nodes — a decision and a use —
 * are decided in Redis, which is why `decide` and `use` may answer with a promise.
 */
import { randomBytes } from 'node:crypto';
import {
  TabgateError,
  type ApprovalAsk,
  type ApprovalChannel,
  type ApprovalKind,
  type ApprovalRecord,
} from '../../protocol/index.js';
import { timersOf, type Clock, type Timer, type TimerClock } from '../clock.js';

/** What binds an approval to one action. */
export interface ApprovalBinding {
  sessionId: string;
  tool: string;
  argumentHash: string;
  ref: string | null;
  frameOrigin: string;
}

export type Settled = 'approved' | 'denied' | 'expired';

export interface Entry {
  record: ApprovalRecord;
  expiresAtMs: number;
  timer: Timer | undefined;
  waiters: ((outcome: Settled) => void)[];
  /** The key the extension's popup decides with (see extension-approvals.ts); listed nowhere. */
  decisionKey?: string;
  /** The element as the extension saw it, shown to the person with the record. */
  crop?: string;
}

/** Decided approvals kept for `GET /v1/approvals/{id}` and the list, oldest dropped first. */
const MAX_KEPT = 1_000;

export class ApprovalBook {
  protected readonly entries = new Map<string, Entry>();
  private readonly listeners = new Set<(record: ApprovalRecord) => void>();
  /** Expiries run on the clock when it can wake the book (a test's manual clock), else on the system's. */
  private readonly timers: TimerClock;

  constructor(
    protected readonly clock: Clock,
    /** How long a pending approval waits for a decision, and an approved one for its use. */
    protected readonly ttlMs: number,
  ) {
    this.timers = timersOf(clock);
  }

  /** Told of every new approval and every change of one (the dashboard's live list). */
  onChange(listener: (record: ApprovalRecord) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * A new pending approval for this action; a takeover (the person does a step themselves) waits for
   * its own time rather than the approval timeout.
   */
  open(
    binding: ApprovalBinding,
    ask: ApprovalAsk,
    options: { kind?: ApprovalKind; ttlMs?: number } = {},
  ): ApprovalRecord {
    const now = this.clock.now();
    const ttlMs = options.ttlMs ?? this.ttlMs;
    const record: ApprovalRecord = {
      approval_id: `apr_${randomBytes(12).toString('base64url')}`,
      kind: options.kind ?? 'action',
      session_id: binding.sessionId,
      tool: binding.tool,
      argument_hash: binding.argumentHash,
      ref: binding.ref,
      frame_origin: binding.frameOrigin,
      classes: [...ask.classes],
      summary: ask.summary.slice(0, 500),
      status: 'pending',
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + ttlMs).toISOString(),
      decided_at: null,
      decided_by: null,
      channel: null,
    };
    const entry: Entry = { record, expiresAtMs: now + ttlMs, timer: undefined, waiters: [] };
    this.entries.set(record.approval_id, entry);
    this.arm(entry);
    this.prune();
    this.changed(record);
    return { ...record };
  }

  /** The pending or approved (unused, unexpired) approval of exactly this action, if there is one. */
  find(binding: ApprovalBinding, status: 'pending' | 'approved'): ApprovalRecord | null {
    for (const entry of this.entries.values()) {
      const r = entry.record;
      if (
        r.status === status &&
        !this.lapsed(entry) &&
        r.session_id === binding.sessionId &&
        r.tool === binding.tool &&
        r.argument_hash === binding.argumentHash &&
        r.ref === binding.ref &&
        r.frame_origin === binding.frameOrigin
      )
        return { ...r };
    }
    return null;
  }

  /** Marks an approved approval used; false if it was not approved (or lapsed) meanwhile. */
  use(id: string): boolean | Promise<boolean> {
    const entry = this.entries.get(id);
    if (!entry || entry.record.status !== 'approved' || this.lapsed(entry)) return false;
    entry.record.status = 'used';
    entry.timer?.cancel();
    this.changed(entry.record);
    return true;
  }

  /** Resolves with how the approval settled; `expired` also when `signal` ends the wait first. */
  wait(id: string): Promise<Settled> {
    const entry = this.entries.get(id);
    if (!entry) return Promise.resolve('expired');
    const status = entry.record.status;
    if (status !== 'pending') return Promise.resolve(status === 'used' ? 'approved' : status);
    return new Promise((resolve) => entry.waiters.push(resolve));
  }

  /** Withdraws a pending approval nobody waits for any more (the call was stopped or cancelled). */
  withdraw(id: string): void {
    const entry = this.entries.get(id);
    if (entry?.record.status === 'pending') this.settle(entry, 'expired');
  }

  /**
   * The owner's decision. Throws `approval_not_found`, `approval_expired` or `approval_already_decided`;
   * nothing changes then.
   */
  decide(
    id: string,
    approve: boolean,
    decidedBy: string,
    channel: ApprovalChannel,
  ): ApprovalRecord | Promise<ApprovalRecord> {
    const entry = this.require(id);
    if (this.lapsed(entry) || entry.record.status === 'expired') {
      if (entry.record.status === 'pending') this.settle(entry, 'expired');
      throw new TabgateError('approval_expired', `Approval ${id} expired at ${entry.record.expires_at}.`);
    }
    if (entry.record.status !== 'pending') {
      throw new TabgateError(
        'approval_already_decided',
        `Approval ${id} was already ${entry.record.status}; it cannot be decided again.`,
      );
    }
    const now = this.clock.now();
    entry.record.decided_at = new Date(now).toISOString();
    entry.record.decided_by = decidedBy;
    entry.record.channel = channel;
    if (approve) {
      // An approved action may still be repeated by an agent that did not wait: it has a full period.
      entry.expiresAtMs = now + this.ttlMs;
      entry.record.expires_at = new Date(entry.expiresAtMs).toISOString();
      entry.timer?.cancel();
      this.arm(entry);
    }
    this.settle(entry, approve ? 'approved' : 'denied');
    return { ...entry.record };
  }

  /** Throws `approval_not_found` for an id the book does not hold (or, given, of another session). */
  get(id: string, sessionId?: string): ApprovalRecord {
    const entry = this.require(id, sessionId);
    if (this.lapsed(entry) && (entry.record.status === 'pending' || entry.record.status === 'approved'))
      this.settle(entry, 'expired');
    return { ...entry.record };
  }

  /**
   * As `get`, for a request naming an id it may have learnt a moment ago from another node: a cluster's
   * replica reads the shared record on a miss before it answers `approval_not_found`.
   */
  fetch(id: string, sessionId?: string): ApprovalRecord | Promise<ApprovalRecord> {
    return this.get(id, sessionId);
  }

  /** Every approval, newest first; only the pending ones with `pendingOnly`. */
  list(pendingOnly = false): ApprovalRecord[] {
    const records: ApprovalRecord[] = [];
    for (const entry of this.entries.values()) {
      if (this.lapsed(entry) && (entry.record.status === 'pending' || entry.record.status === 'approved'))
        this.settle(entry, 'expired');
      if (!pendingOnly || entry.record.status === 'pending') records.push({ ...entry.record });
    }
    return records.reverse();
  }

  /**
   * The record's decision key for the extension: the one it has, or a new one. With `once`, null when
   * one was handed out already (a takeover's key goes to the first worker that takes it, only).
   */
  decisionKey(id: string, once = false): string | null | Promise<string | null> {
    const entry = this.require(id);
    if (entry.decisionKey !== undefined) return once ? null : entry.decisionKey;
    return (entry.decisionKey = randomBytes(32).toString('base64url'));
  }

  /** The decision key handed out for this record while it waits for a decision: it goes with one. */
  keptKey(id: string): string | undefined | Promise<string | undefined> {
    const entry = this.entries.get(id);
    return entry?.record.status === 'pending' ? entry.decisionKey : undefined;
  }

  /** Keeps the first crop of the element given for a pending record. */
  keepCrop(id: string, crop: string): void {
    const entry = this.entries.get(id);
    if (entry && entry.crop === undefined && entry.record.status === 'pending') entry.crop = crop;
  }

  cropOf(id: string): string | null {
    const entry = this.entries.get(id);
    return entry?.record.status === 'pending' ? (entry.crop ?? null) : null;
  }

  /** The pending takeover of this session, wherever it was asked. */
  pendingTakeover(sessionId: string): ApprovalRecord | null {
    for (const entry of this.entries.values()) {
      const r = entry.record;
      if (
        r.kind === 'takeover' &&
        r.session_id === sessionId &&
        r.status === 'pending' &&
        !this.lapsed(entry)
      )
        return { ...r };
    }
    return null;
  }

  /**
   * Takes the state another node decided (a replica's update): a new record is added; a known one moves
   * on only, never back, and a settled one wakes its waiters here.
   */
  protected adopt(record: ApprovalRecord, expiresAtMs: number): void {
    const entry = this.entries.get(record.approval_id);
    if (!entry) {
      const fresh: Entry = { record: { ...record }, expiresAtMs, timer: undefined, waiters: [] };
      this.entries.set(record.approval_id, fresh);
      if (record.status === 'pending' || record.status === 'approved') this.arm(fresh);
      this.prune();
      this.changed(fresh.record);
      return;
    }
    const rank = { pending: 0, approved: 1, denied: 2, expired: 2, used: 2 } as const;
    if (rank[record.status] < rank[entry.record.status]) return;
    if (record.status === entry.record.status && expiresAtMs === entry.expiresAtMs) return;
    Object.assign(entry.record, {
      decided_at: record.decided_at,
      decided_by: record.decided_by,
      channel: record.channel,
      expires_at: record.expires_at,
    });
    if (expiresAtMs !== entry.expiresAtMs) {
      entry.expiresAtMs = expiresAtMs;
      entry.timer?.cancel();
      if (record.status === 'pending' || record.status === 'approved') this.arm(entry);
    }
    if (record.status === entry.record.status) {
      this.changed(entry.record);
      return;
    }
    if (record.status === 'pending') return;
    this.settle(entry, record.status === 'used' ? 'approved' : record.status, record.status);
  }

  /** Ends every wait: shutdown. */
  close(): void {
    for (const entry of this.entries.values())
      if (entry.record.status === 'pending') this.settle(entry, 'expired');
  }

  protected require(id: string, sessionId?: string): Entry {
    const entry = this.entries.get(id);
    if (!entry || (sessionId !== undefined && entry.record.session_id !== sessionId)) {
      throw new TabgateError('approval_not_found', `No approval ${JSON.stringify(id.slice(0, 100))} here.`);
    }
    return entry;
  }

  protected lapsed(entry: Entry): boolean {
    return this.clock.now() >= entry.expiresAtMs;
  }

  private arm(entry: Entry): void {
    const delay = Math.max(0, entry.expiresAtMs - this.clock.now());
    entry.timer = this.timers.setTimer(() => {
      const status = entry.record.status;
      if (status === 'pending' || status === 'approved') this.settle(entry, 'expired');
    }, delay);
    entry.timer.keepAlive(false);
  }

  protected settle(entry: Entry, outcome: Settled, status: ApprovalRecord['status'] = outcome): void {
    if (outcome !== 'approved' || status === 'used') entry.timer?.cancel();
    entry.record.status = status;
    // Decided: the key and the crop (up to 300 KB) have done their part.
    entry.decisionKey = undefined;
    entry.crop = undefined;
    const waiters = entry.waiters;
    entry.waiters = [];
    for (const waiter of waiters) waiter(outcome);
    this.changed(entry.record);
  }

  protected changed(record: ApprovalRecord): void {
    for (const listener of [...this.listeners]) {
      try {
        listener({ ...record });
      } catch {
        // A faulty listener changes no approval.
      }
    }
  }

  private prune(): void {
    if (this.entries.size <= MAX_KEPT) return;
    for (const [id, entry] of this.entries) {
      if (this.entries.size <= MAX_KEPT) return;
      if (entry.record.status === 'pending') continue;
      entry.timer?.cancel();
      this.entries.delete(id);
    }
  }
}
