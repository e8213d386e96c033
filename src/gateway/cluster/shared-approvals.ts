/**
 * The approval book of a cluster (docs/cluster.md "Approvals and takeovers"): every node holds a
 * replica of every pending and recent approval and takeover, so any node lists them, shows one, and
 * decides one, whichever node asked. Redis holds each record (a hash with an expiry); a decision and a
 * use are one script each, so an approval is decided once and used once across the cluster. Each
 * change is announced on a channel every node listens to, and the node where a call waits wakes it at
 * once; a node also reads again, every second, the records still undecided or unused, so an
 * announcement lost with a connection delays a decision by that much and loses none.
 */
import { randomBytes } from 'node:crypto';
import type { ApprovalChannel, ApprovalRecord } from '../../protocol/index.js';
import { TabgateError } from '../../protocol/index.js';
import type { Logger } from '../../log/logger.js';
import { ApprovalBook, type Entry } from '../approvals/approval-book.js';
import type { Clock } from '../clock.js';
import type { RedisClient, RedisLink } from './redis-link.js';

const CHANNEL = 'tg:apr:changed';
const INDEX_KEY = 'tg:apr:idx';
const recordKey = (id: string): string => `tg:apr:${id}`;
/** A settled record stays listed (and readable by `GET /v1/approvals/{id}`) this long past its expiry. */
const KEEP_MS = 10 * 60 * 1000;
const RESYNC_MS = 1000;

/** The record's state, as the scripts below read and change it; returned by each as a flat field list. */
const FIELDS = `local function fields() return redis.call('HGETALL', KEYS[1]) end`;

/**
 * KEYS: record. ARGV: now, approve ('1'/'0'), decided by, channel, decided at (ISO), the approved one's
 * new expiry (ms) and as ISO, keep ms, announcement channel, id. → {verdict, fields}: 'ok' |
 * 'not_found' | 'expired' | the status it already had.
 */
const DECIDE = `${FIELDS}
local f = redis.call('HMGET', KEYS[1], 'status', 'exp')
if not f[1] then return {'not_found', {}} end
local now = tonumber(ARGV[1])
local live = now < tonumber(f[2])
if f[1] == 'expired' or ((f[1] == 'pending' or f[1] == 'approved') and not live) then
  if f[1] == 'pending' then
    redis.call('HSET', KEYS[1], 'status', 'expired')
    redis.call('PUBLISH', ARGV[9], ARGV[10])
  end
  return {'expired', fields()}
end
if f[1] ~= 'pending' then return {f[1], fields()} end
redis.call('HSET', KEYS[1], 'decided_at', ARGV[5], 'decided_by', ARGV[3], 'channel', ARGV[4])
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], 'status', 'approved', 'exp', ARGV[6], 'expires_at', ARGV[7])
  redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[6]) - now + tonumber(ARGV[8]))
  redis.call('ZADD', 'tg:apr:idx', tonumber(ARGV[6]) + tonumber(ARGV[8]), ARGV[10])
else
  redis.call('HSET', KEYS[1], 'status', 'denied')
end
redis.call('PUBLISH', ARGV[9], ARGV[10])
return {'ok', fields()}`;

/** KEYS: record. ARGV: now, from status, to status, channel, id. One step, only from `from` and unlapsed. */
const MOVE = `${FIELDS}
local f = redis.call('HMGET', KEYS[1], 'status', 'exp')
if f[1] ~= ARGV[2] or tonumber(ARGV[1]) >= tonumber(f[2]) then return {'no', fields()} end
redis.call('HSET', KEYS[1], 'status', ARGV[3])
redis.call('PUBLISH', ARGV[4], ARGV[5])
return {'ok', fields()}`;

/**
 * KEYS: record. ARGV: a new key, once ('1'/'0'). The record's decision key, the first one given winning
 * on every node. → the key | nil (no record, or `once` and one was handed out already)
 */
const DECISION_KEY = `if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if redis.call('HSETNX', KEYS[1], 'dk', ARGV[1]) == 1 then return ARGV[1] end
if ARGV[2] == '1' then return false end
return redis.call('HGET', KEYS[1], 'dk')`;

const cropKey = (id: string): string => `tg:apr:crop:${id}`;

function recordOf(flat: string[]): { record: ApprovalRecord; expiresAtMs: number } | null {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) f[flat[i] as string] = flat[i + 1] as string;
  if (!f.rec || !f.status || !f.exp) return null;
  const base = JSON.parse(f.rec) as ApprovalRecord;
  const record: ApprovalRecord = {
    ...base,
    status: f.status as ApprovalRecord['status'],
    expires_at: f.expires_at ?? base.expires_at,
    decided_at: f.decided_at || null,
    decided_by: f.decided_by || null,
    channel: (f.channel || null) as ApprovalChannel | null,
  };
  return { record, expiresAtMs: Number(f.exp) };
}

export class SharedApprovalBook extends ApprovalBook {
  private subscriber: RedisClient | null = null;
  private resync: NodeJS.Timeout | null = null;

  constructor(
    private readonly link: RedisLink,
    private readonly log: Logger,
    clock: Clock,
    ttlMs: number,
  ) {
    super(clock, ttlMs);
  }

  /** Listens for changes first, then reads what the cluster holds, so nothing falls between. */
  async start(): Promise<void> {
    const subscriber = this.link.command.duplicate({ name: `tg-sub-${this.link.nodeId}` });
    subscriber.on('error', () => undefined); // the command connection's own handler reports Redis loss
    await subscriber.connect();
    await subscriber.subscribe(CHANNEL, (id) => void this.refresh(id));
    this.subscriber = subscriber;
    const ids = await this.link.command.sendCommand<string[]>([
      'ZRANGEBYSCORE',
      INDEX_KEY,
      String(this.clock.now()),
      '+inf',
    ]);
    await Promise.all(ids.map((id) => this.refresh(id)));
    this.resync = setInterval(() => {
      // What is still undecided or unused: a call may wait on it, or a session be paused by it.
      for (const [id, entry] of this.entries)
        if ((entry.record.status === 'pending' || entry.record.status === 'approved') && !this.lapsed(entry))
          void this.refresh(id);
      void this.link.command
        .sendCommand(['ZREMRANGEBYSCORE', INDEX_KEY, '-inf', String(this.clock.now())])
        .catch(() => undefined);
    }, RESYNC_MS);
    this.resync.unref();
  }

  /**
   * A request may name an approval another node opened a moment ago, before its announcement arrived
   * here: the record is read from Redis before the answer is `approval_not_found`.
   */
  override async fetch(id: string, sessionId?: string): Promise<ApprovalRecord> {
    if (!this.entries.has(id)) {
      let fields: string[];
      try {
        fields = await this.link.command.sendCommand<string[]>(['HGETALL', recordKey(id)]);
      } catch {
        throw new TabgateError(
          'cluster_unavailable',
          `this gateway cannot reach its cluster's Redis to read approval ${JSON.stringify(id.slice(0, 100))}`,
        );
      }
      this.take(fields);
    }
    return this.get(id, sessionId);
  }

  override open(...args: Parameters<ApprovalBook['open']>): ApprovalRecord {
    const record = super.open(...args);
    const entry = this.entries.get(record.approval_id) as Entry;
    const id = record.approval_id;
    const key = recordKey(id);
    // On the command connection, before any decision this node could run on it.
    this.link.command
      .multi()
      .hSet(key, {
        rec: JSON.stringify(record),
        status: 'pending',
        exp: String(entry.expiresAtMs),
        expires_at: record.expires_at,
      })
      .pExpire(key, entry.expiresAtMs - this.clock.now() + KEEP_MS)
      .zAdd(INDEX_KEY, { score: entry.expiresAtMs + KEEP_MS, value: id })
      .publish(CHANNEL, id)
      .exec()
      .catch((error: unknown) =>
        this.log.warn('approval not shared with the cluster', {
          approval_id: id,
          reason: (error as Error).message,
        }),
      );
    return record;
  }

  override async decide(
    id: string,
    approve: boolean,
    decidedBy: string,
    channel: ApprovalChannel,
  ): Promise<ApprovalRecord> {
    const now = this.clock.now();
    const expiresAtMs = now + this.ttlMs;
    const [verdict, fields] = (await this.run('the decision', DECIDE, id, [
      String(now),
      approve ? '1' : '0',
      decidedBy,
      channel,
      new Date(now).toISOString(),
      String(expiresAtMs),
      new Date(expiresAtMs).toISOString(),
      String(KEEP_MS),
      CHANNEL,
      id,
    ])) as [string, string[]];
    if (verdict === 'not_found') {
      const known = this.entries.get(id);
      if (known) {
        // Held here but lost by Redis: it can no longer be decided anywhere.
        this.forgotten(id);
        throw new TabgateError(
          'approval_expired',
          `Approval ${id} was lost when the cluster's Redis restarted; ask for it again.`,
        );
      }
      throw new TabgateError('approval_not_found', `No approval ${JSON.stringify(id.slice(0, 100))} here.`);
    }
    const state = this.take(fields);
    if (verdict === 'expired')
      throw new TabgateError('approval_expired', `Approval ${id} expired at ${state?.expires_at ?? ''}.`);
    if (verdict !== 'ok')
      throw new TabgateError(
        'approval_already_decided',
        `Approval ${id} was already ${verdict}; it cannot be decided again.`,
      );
    return { ...(state as ApprovalRecord) };
  }

  override async use(id: string): Promise<boolean> {
    const [verdict, fields] = (await this.run('the approved action', MOVE, id, [
      String(this.clock.now()),
      'approved',
      'used',
      CHANNEL,
      id,
    ])) as [string, string[]];
    this.take(fields);
    return verdict === 'ok';
  }

  override async decisionKey(id: string, once = false): Promise<string | null> {
    this.require(id);
    const key = (await this.run('the decision key', DECISION_KEY, id, [
      randomBytes(32).toString('base64url'),
      once ? '1' : '0',
    ])) as string | null;
    if (key === null && !once)
      throw new TabgateError('cluster_unavailable', `approval ${id} is not in the cluster's Redis`);
    return key;
  }

  override async keptKey(id: string): Promise<string | undefined> {
    try {
      const [status, key] = await this.link.command.sendCommand<(string | null)[]>([
        'HMGET',
        recordKey(id),
        'status',
        'dk',
      ]);
      return status === 'pending' && key ? key : undefined;
    } catch {
      return undefined; // no key known: the decision is refused, never taken without one
    }
  }

  override keepCrop(id: string, crop: string): void {
    super.keepCrop(id, crop);
    const entry = this.entries.get(id);
    if (!entry) return;
    this.link.command
      .multi()
      .set(cropKey(id), crop, { NX: true, PX: Math.max(1, entry.expiresAtMs - this.clock.now()) })
      .publish(CHANNEL, id)
      .exec()
      .catch(() => undefined); // a crop only helps the person recognise the element
  }

  override withdraw(id: string): void {
    super.withdraw(id);
    this.run('the withdrawal', MOVE, id, [String(this.clock.now()), 'pending', 'expired', CHANNEL, id])
      .then((reply) => this.take((reply as [string, string[]])[1]))
      .catch((error: unknown) =>
        this.log.warn('approval withdrawal not shared', {
          approval_id: id,
          reason: (error as Error).message,
        }),
      );
  }

  override close(): void {
    super.close();
    if (this.resync) clearInterval(this.resync);
    this.subscriber?.destroy();
    this.subscriber = null;
  }

  private async run(what: string, script: string, id: string, args: string[]): Promise<unknown> {
    try {
      return await this.link.run(script, [recordKey(id)], args);
    } catch {
      throw new TabgateError(
        'cluster_unavailable',
        `this gateway cannot reach its cluster's Redis; ${what} changed nothing`,
      );
    }
  }

  /**
   * Redis no longer holds a record that is still undecided or unused here (it keeps each until well past
   * its expiry): it restarted, failed over or was flushed, or the record never reached it. Nobody can
   * decide or use it any more, so what waits for it ends now, as expired, rather than at its timeout.
   */
  private forgotten(id: string): void {
    const entry = this.entries.get(id);
    if (!entry || this.lapsed(entry)) return;
    const { status } = entry.record;
    if (status !== 'pending' && status !== 'approved') return;
    this.log.warn("the cluster's Redis lost an approval; it ends as expired", {
      approval_id: id,
      session_id: entry.record.session_id,
    });
    this.settle(entry, 'expired');
  }

  /** The cluster's state of one record, adopted here. */
  private take(fields: string[]): ApprovalRecord | null {
    const state = recordOf(fields);
    if (!state) return null;
    this.adopt(state.record, state.expiresAtMs);
    return this.entries.get(state.record.approval_id)?.record ?? null;
  }

  private async refresh(id: string): Promise<void> {
    try {
      const fields = await this.link.command.sendCommand<string[]>(['HGETALL', recordKey(id)]);
      if (fields.length === 0) {
        this.forgotten(id);
        return;
      }
      const record = this.take(fields);
      const entry = this.entries.get(id);
      if (record?.status === 'pending' && entry && entry.crop === undefined) {
        const crop = await this.link.command.sendCommand<string | null>(['GET', cropKey(id)]);
        if (crop !== null) entry.crop = crop;
      }
    } catch (error) {
      this.log.debug('approval not refreshed', { approval_id: id, reason: (error as Error).message });
    }
  }
}
