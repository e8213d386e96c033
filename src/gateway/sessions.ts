/**
 * Session lifecycle on top of the store: ids, validation, ownership. A session belongs to the principal
 * whose credential created it; for everyone else it does not exist.
 */
import { randomBytes } from 'node:crypto';
import { TabgateError } from '../protocol/index.js';
import { ChangeSource } from './change-source.js';
import type { Clock } from './clock.js';
import type { Caller, CreateSessionInput, SessionRecord } from './service.js';
import type { BindingObserver, SessionBinding } from './session-binding.js';
import type { SessionRows, StoredSession } from './store/store.js';

export const SESSION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,256}$/;
const MAX_TITLE_CHARS = 512;
const MAX_SOURCE_CHARS = 64;

export const newSessionId = (): string => `sess_${randomBytes(18).toString('base64url')}`;

const publicRecord = ({ principal_id: _owner, ...record }: StoredSession): SessionRecord => record;

/**
 * Sessions looked up on every tool call stay in memory when this gateway is the store's only writer;
 * the store stays the source of truth. A store other gateways write (PostgreSQL) is read afresh on
 * every call: a Stop or a binding made on another gateway must count on the very next call here.
 */
const CACHE_LIMIT = 10_000;

export interface SessionsOptions {
  /** Whether records may be cached (this gateway is the store's only writer). */
  cache: boolean;
  /** Told when a write the broker reported could not be stored. */
  onWriteError?: (sessionId: string, error: unknown) => void;
}

export class Sessions {
  private readonly cache = new Map<string, StoredSession>();
  /** The last write queued per session: writes of one session reach the store in the order made. */
  private readonly writes = new Map<string, Promise<unknown>>();
  /** Counts writes: a read that a write overtook is not cached (it may predate the write). */
  private epoch = 0;
  /**
   * The id of each session created, deleted, stopped, resumed or rebound here, once the store has it: a
   * reader told of it reads the session again and finds the change. Another gateway's writes to a shared
   * store are not heard here.
   */
  readonly changed = new ChangeSource<string>();

  constructor(
    private readonly store: SessionRows,
    private readonly clock: Clock,
    private readonly options: SessionsOptions = { cache: true },
  ) {}

  /**
   * Creates a session. With an explicit id (a reference client recreating its lost session) an existing
   * session of the same owner is returned as it is (`created: false`), never duplicated.
   */
  async create(
    caller: Caller,
    input: CreateSessionInput,
  ): Promise<{ record: SessionRecord; created: boolean }> {
    const title = input.title ?? null;
    if (title !== null && (typeof title !== 'string' || title.length > MAX_TITLE_CHARS)) {
      throw new TabgateError(
        'invalid_request',
        `title must be a string of at most ${MAX_TITLE_CHARS} characters`,
      );
    }
    const source = input.source ?? 'api';
    if (typeof source !== 'string' || source.length === 0 || source.length > MAX_SOURCE_CHARS) {
      throw new TabgateError(
        'invalid_request',
        `source must be a string of 1-${MAX_SOURCE_CHARS} characters`,
      );
    }
    if (input.id !== undefined && (typeof input.id !== 'string' || !SESSION_ID_PATTERN.test(input.id))) {
      throw new TabgateError('invalid_request', 'id must be 1-256 characters of A-Z a-z 0-9 . _ : -');
    }
    const { record, created } = await this.store.insert({
      session_id: input.id ?? newSessionId(),
      title,
      source,
      principal_id: caller.principalId,
      created_at: new Date(this.clock.now()).toISOString(),
      binding: null,
      stopped_at: null,
    });
    if (record.principal_id !== caller.principalId) {
      throw new TabgateError('session_exists', 'That session id is taken; choose another id.');
    }
    if (created) this.changed.emit(record.session_id);
    return { record: publicRecord(record), created };
  }

  async list(caller: Caller): Promise<SessionRecord[]> {
    return (await this.store.list(caller.principalId)).map(publicRecord);
  }

  /** The caller's session, or null. */
  async find(caller: Caller, sessionId: string): Promise<SessionRecord | null> {
    const record = await this.owned(caller, sessionId);
    return record ? publicRecord(record) : null;
  }

  async get(caller: Caller, sessionId: string): Promise<SessionRecord> {
    return publicRecord(await this.require(caller, sessionId));
  }

  /** Throws `session_not_found` unless the caller has this session (every tool call asks). */
  async require(caller: Caller, sessionId: string): Promise<StoredSession> {
    const record = await this.owned(caller, sessionId);
    if (!record)
      throw new TabgateError('session_not_found', `No session ${JSON.stringify(sessionId.slice(0, 256))}.`);
    return record;
  }

  /**
   * The caller's session when it is in memory (a store only this gateway writes), else null: the tool
   * call's path takes it without waiting, and asks `require` otherwise.
   */
  cached(caller: Caller, sessionId: string): StoredSession | null {
    const record = this.cache.get(sessionId);
    return record && record.principal_id === caller.principalId ? record : null;
  }

  async delete(caller: Caller, sessionId: string): Promise<void> {
    this.epoch += 1;
    this.cache.delete(sessionId);
    const at = new Date(this.clock.now()).toISOString();
    if (!(await this.store.delete(sessionId, caller.principalId, at))) await this.get(caller, sessionId);
    this.cache.delete(sessionId);
    this.changed.emit(sessionId);
  }

  /**
   * Stores a session's binding, whoever owns it (the broker reports controllers, not callers). The cached
   * record is replaced, never edited, so a route decision already holding the old one stays consistent.
   */
  async setBinding(
    sessionId: string,
    binding: Omit<SessionBinding, 'since'> | null,
  ): Promise<SessionBinding | null> {
    const since = new Date(this.clock.now()).toISOString();
    const stored = binding ? { ...binding, since } : null;
    // The cache first, at once: the broker's next routing decision must already see it.
    const cached = this.cache.get(sessionId);
    if (cached) this.cache.set(sessionId, { ...cached, binding: stored });
    const written = await this.write(sessionId, () => this.store.setBinding(sessionId, stored, since));
    this.changed.emit(sessionId);
    return written ? stored : null;
  }

  /** Records the owner's Stop (now) or Resume; the cached record is replaced, as for a binding. */
  async setStopped(sessionId: string, stopped: boolean): Promise<string | null> {
    const stoppedAt = stopped ? new Date(this.clock.now()).toISOString() : null;
    const cached = this.cache.get(sessionId);
    if (cached) this.cache.set(sessionId, { ...cached, stopped_at: stoppedAt });
    const written = await this.write(sessionId, () => this.store.setStopped(sessionId, stoppedAt));
    this.changed.emit(sessionId);
    return written ? stoppedAt : null;
  }

  /** Runs a write after the session's earlier ones (at once when none is pending). */
  private write(sessionId: string, run: () => Promise<boolean>): Promise<boolean> {
    this.epoch += 1;
    const before = this.writes.get(sessionId);
    const done = before ? before.then(run, run) : run();
    this.writes.set(sessionId, done);
    const forget = () => {
      if (this.writes.get(sessionId) === done) this.writes.delete(sessionId);
    };
    done.then(forget, forget);
    return done;
  }

  private report(sessionId: string, written: Promise<unknown>): void {
    written.catch((error: unknown) => this.options.onWriteError?.(sessionId, error));
  }

  /** The broker's observer: every attach, stop and revoke lands in the session's stored binding. */
  bindingObserver(): BindingObserver {
    return {
      bound: (scope) => {
        const current = this.cache.get(scope.session_id)?.binding;
        // A reconnect of the controller that already holds the session changes nothing worth a write.
        if (current?.state === 'bound' && current.controller_id === scope.controller_id) return;
        this.report(
          scope.session_id,
          this.setBinding(scope.session_id, { state: 'bound', controller_id: scope.controller_id }),
        );
      },
      released: (scope, why) => {
        this.report(
          scope.session_id,
          this.setBinding(scope.session_id, { state: why, controller_id: scope.controller_id }),
        );
      },
    };
  }

  private async owned(caller: Caller, sessionId: string): Promise<StoredSession | null> {
    let record = this.cache.get(sessionId);
    if (!record) {
      const epoch = this.epoch;
      const stored = await this.store.get(sessionId);
      record = (epoch === this.epoch ? this.remember(stored) : stored) ?? undefined;
    }
    return record && record.principal_id === caller.principalId ? record : null;
  }

  private remember(record: StoredSession | null): StoredSession | null {
    if (!record || !this.options.cache) return record;
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(record.session_id, record);
    return record;
  }
}
