/**
 * Session lifecycle on top of the store: ids, validation, ownership. A session belongs to the principal
 * whose credential created it; for everyone else it does not exist.
 */
import { randomBytes } from 'node:crypto';
import { TabgateError } from '../protocol/index.js';
import type { Clock } from './clock.js';
import type { Caller, CreateSessionInput, SessionRecord } from './service.js';
import type { BindingObserver, SessionBinding } from './session-binding.js';
import type { SessionStore, StoredSession } from './store/session-store.js';

export const SESSION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,256}$/;
const MAX_TITLE_CHARS = 512;
const MAX_SOURCE_CHARS = 64;

export const newSessionId = (): string => `sess_${randomBytes(18).toString('base64url')}`;

const publicRecord = ({ principal_id: _owner, ...record }: StoredSession): SessionRecord => record;

/** Sessions looked up on every tool call stay in memory; the store stays the source of truth. */
const CACHE_LIMIT = 10_000;

export class Sessions {
  private readonly cache = new Map<string, StoredSession>();

  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
  ) {}

  /**
   * Creates a session. With an explicit id (a reference client recreating its lost session) an existing
   * session of the same owner is returned as it is (`created: false`), never duplicated.
   */
  create(caller: Caller, input: CreateSessionInput): { record: SessionRecord; created: boolean } {
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
    const { record, created } = this.store.insert({
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
    return { record: publicRecord(record), created };
  }

  list(caller: Caller): SessionRecord[] {
    return this.store.list(caller.principalId).map(publicRecord);
  }

  /** The caller's session, or null. */
  find(caller: Caller, sessionId: string): SessionRecord | null {
    const record = this.owned(caller, sessionId);
    return record ? publicRecord(record) : null;
  }

  get(caller: Caller, sessionId: string): SessionRecord {
    return publicRecord(this.require(caller, sessionId));
  }

  /** Throws `session_not_found` unless the caller has this session (every tool call asks). */
  require(caller: Caller, sessionId: string): StoredSession {
    const record = this.owned(caller, sessionId);
    if (!record)
      throw new TabgateError('session_not_found', `No session ${JSON.stringify(sessionId.slice(0, 256))}.`);
    return record;
  }

  delete(caller: Caller, sessionId: string): void {
    if (!this.store.delete(sessionId, caller.principalId)) this.get(caller, sessionId);
    this.cache.delete(sessionId);
  }

  /**
   * Stores a session's binding, whoever owns it (the broker reports controllers, not callers). The cached
   * record is replaced, never edited, so a route decision already holding the old one stays consistent.
   */
  setBinding(sessionId: string, binding: Omit<SessionBinding, 'since'> | null): SessionBinding | null {
    const since = new Date(this.clock.now()).toISOString();
    const stored = binding ? { ...binding, since } : null;
    if (!this.store.setBinding(sessionId, stored, since)) return null;
    const cached = this.cache.get(sessionId);
    if (cached) this.cache.set(sessionId, { ...cached, binding: stored });
    return stored;
  }

  /** Records the owner's Stop (now) or Resume; the cached record is replaced, as for a binding. */
  setStopped(sessionId: string, stopped: boolean): string | null {
    const stoppedAt = stopped ? new Date(this.clock.now()).toISOString() : null;
    if (!this.store.setStopped(sessionId, stoppedAt)) return null;
    const cached = this.cache.get(sessionId);
    if (cached) this.cache.set(sessionId, { ...cached, stopped_at: stoppedAt });
    return stoppedAt;
  }

  /** The broker's observer: every attach, stop and revoke lands in the session's stored binding. */
  bindingObserver(): BindingObserver {
    return {
      bound: (scope) => {
        const current = this.cache.get(scope.session_id)?.binding;
        // A reconnect of the controller that already holds the session changes nothing worth a write.
        if (current?.state === 'bound' && current.controller_id === scope.controller_id) return;
        this.setBinding(scope.session_id, { state: 'bound', controller_id: scope.controller_id });
      },
      released: (scope, why) => {
        this.setBinding(scope.session_id, { state: why, controller_id: scope.controller_id });
      },
    };
  }

  private owned(caller: Caller, sessionId: string): StoredSession | null {
    const record = this.cache.get(sessionId) ?? this.remember(this.store.get(sessionId));
    return record && record.principal_id === caller.principalId ? record : null;
  }

  private remember(record: StoredSession | null): StoredSession | null {
    if (!record) return null;
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(record.session_id, record);
    return record;
  }
}
