/**
 * The audit trail of tool calls: every call routed to a user's browser (the controller route, including
 * calls refused because the controller was unreachable or the arguments were unsafe), and every
 * backend call when `audit.all_backends` is on. A call is journaled as soon as it is dispatched (see audit-journal.ts),
 * before the agent can get an answer, so an answered call is always in the log; its row, with outcome
 * and duration, is written when it ends. A call its gateway never saw end is logged as `interrupted`.
 * Rows older than `audit.retention_days` are purged at start and then daily.
 */
import { isTabgateError } from '../../protocol/index.js';
import type { Clock } from '../clock.js';
import type { Logger } from '../../log/logger.js';
import type { Caller } from '../service.js';
import { AuditJournal, type JournalTicket } from './audit-journal.js';
import type { AuditContext, AuditEntry, AuditQuery, AuditStart } from './audit-entry.js';
import type { AuditRows, InsertedAuditRow } from '../store/store.js';
import { originOf, redactArguments } from './redact.js';

const DAY_MS = 86_400_000;

export interface AuditedCall {
  caller: Caller;
  sessionId: string;
  action: string;
  /** The arguments as the agent sent them; redacted before they are stored. */
  arguments: unknown;
  toolCallId: string | null;
  /** `controller` or the backend's name. */
  backend: string;
  controllerId: string | null;
  /** What the row should carry besides the call, judged once it has ended (see AuditEntry.context). */
  contextOf?: (ending: CallEnding) => AuditContext | null;
}

/** How a call ended, as `AuditedCall.contextOf` sees it. */
export type CallEnding = { ok: true; result: unknown } | { ok: false; error: unknown };

export interface AuditLogOptions {
  store: AuditRows;
  /** The gateway's home: the journal lives there. */
  home: string;
  clock: Clock;
  log: Logger;
  retentionDays: number;
  /** Also audit calls served by local Chromium, a provider or a CDP URL. */
  allBackends: boolean;
}

function outcomeOf(error: unknown): string {
  return isTabgateError(error) ? error.code : 'internal_error';
}

function resultUrl(result: unknown): unknown {
  return typeof result === 'object' && result !== null ? (result as { url?: unknown }).url : undefined;
}

export class AuditLog {
  private readonly purgeTimer: NodeJS.Timeout;

  /** Folds what gone gateways' journals hold, purges past retention, and opens this one's journal. */
  static async open(o: AuditLogOptions): Promise<AuditLog> {
    const journal = await AuditJournal.open({ home: o.home, store: o.store, log: o.log });
    const log = new AuditLog(o, journal);
    await log.purge();
    return log;
  }

  private constructor(
    private readonly o: AuditLogOptions,
    private readonly journal: AuditJournal,
  ) {
    this.purgeTimer = setInterval(() => void this.purge(), DAY_MS);
    this.purgeTimer.unref();
  }

  /** Whether calls to a backend (not a controller) are audited. */
  get allBackends(): boolean {
    return this.o.allBackends;
  }

  /** Runs the call, records it and how it ended, and hands back its result or error unchanged. */
  track<T>(call: AuditedCall, run: () => Promise<T>): Promise<T> {
    const startedAt = this.o.clock.now();
    const started = performance.now();
    const running = run();
    // `run` has dispatched the call by now (a controller's command leaves synchronously), and its answer
    // is at least a microtask away: journaling here keeps the write off the answer's path.
    const ticket = this.journal.begin(this.startOf(call, startedAt));
    // The answer leaves in reactions to the promise returned here, so after the call's end line is
    // written (audit-journal.ts): at once when the journal hands back nothing to wait for.
    return running.then(
      (result) => {
        const written = this.end(ticket, started, call, { ok: true, result });
        return written ? written.then(() => result) : result;
      },
      (error: unknown) => {
        const written = this.end(ticket, started, call, { ok: false, error });
        if (!written) throw error;
        return written.then(() => Promise.reject(error as Error));
      },
    );
  }

  private end(
    ticket: JournalTicket,
    started: number,
    call: AuditedCall,
    ending: CallEnding,
  ): Promise<void> | undefined {
    let context: AuditContext | null = null;
    try {
      context = call.contextOf?.(ending) ?? null;
    } catch (error) {
      // The row matters more than its context: it is written without.
      this.o.log.warn('audit context failed', { reason: (error as Error).message });
    }
    this.journal.end(ticket, {
      outcome: ending.ok ? 'ok' : outcomeOf(ending.error),
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      origin: originOf(ending.ok ? resultUrl(ending.result) : undefined) ?? null,
      context,
    });
    return this.journal.endsWritten();
  }

  /** The log as it stands, every answered call included (with a shared store: every gateway's). */
  async list(query: AuditQuery): Promise<AuditEntry[]> {
    await this.journal.flush();
    return this.o.store.list(query);
  }

  /**
   * The rows folded so far, without folding first: for a reader that follows the log as it grows (the
   * dashboard's live stream), which would otherwise make the journal fold every few milliseconds.
   */
  listFolded(query: AuditQuery): Promise<AuditEntry[]> {
    return this.o.store.list(query);
  }

  /**
   * Hands `listener` the rows each fold commits, with their ids, so a reader following the log (the
   * dashboard's live stream) need not read back what was just written; returns the unsubscribe
   * function. Null with a shared store, whose other gateways' rows only a read finds.
   */
  onFolded(listener: (rows: readonly InsertedAuditRow[]) => void): (() => void) | null {
    return this.o.store.onFolded?.(listener) ?? null;
  }

  /** Folds what the journal still holds and stops the purge timer. */
  close(): Promise<void> {
    clearInterval(this.purgeTimer);
    return this.journal.close();
  }

  private startOf(call: AuditedCall, at: number): AuditStart {
    const args = call.arguments as { url?: unknown } | null;
    return {
      at_ms: at,
      session_id: call.sessionId,
      principal_id: call.caller.principalId,
      controller_id: call.controllerId,
      backend: call.backend,
      action: call.action,
      arguments: redactArguments(call.action, call.arguments),
      origin: originOf(call.action === 'browser_navigate' ? args?.url : undefined) ?? null,
      tool_call_id: call.toolCallId,
    };
  }

  private async purge(): Promise<void> {
    try {
      const cutoff = this.o.clock.now() - this.o.retentionDays * DAY_MS;
      const removed = await this.o.store.purgeBefore(cutoff);
      if (removed > 0) this.o.log.info('audit rows past retention purged', { removed });
    } catch (error) {
      this.o.log.warn('audit purge failed', { reason: (error as Error).message });
    }
  }
}
