/**
 * What each session did lately, for the owner's dashboard: the last actions of every session (tool,
 * arguments redacted as in the audit log, outcome, duration, the page it ended on), whatever backend ran
 * them, in memory only and bounded. The audit log stays the durable record; this is the live view's
 * timeline and the sessions list's "last action". Listeners hear every start and end.
 */
import { getTool, isTabgateError } from '../../protocol/index.js';
import { redactArguments, redactUrl } from '../audit/index.js';
import type { Clock } from '../clock.js';

export interface ActionEntry {
  /** Increasing over the gateway's life: the order actions started in. */
  seq: number;
  session_id: string;
  tool: string;
  /** Redacted: no typed text, no secret-looking URL parts. */
  arguments: Record<string, unknown>;
  /** ISO 8601. */
  started_at: string;
  /** Null while it runs; `ok` or the error code the agent got. */
  outcome: string | null;
  duration_ms: number | null;
  /** The page the action ended on, when its result says (URL redacted). */
  page: { url: string; title: string } | null;
}

/**
 * Where a session's tab was last seen: a click after a navigation may have moved it, and the dashboard
 * then says "last seen on" rather than "on".
 */
export interface LastPage {
  url: string;
  title: string;
  current: boolean;
}

const PER_SESSION = 100;
/** Sessions whose timelines are kept; past it, the one idle longest is dropped. */
export const SESSIONS = 1000;

function pageOf(result: unknown): ActionEntry['page'] {
  if (typeof result !== 'object' || result === null) return null;
  const { url, title } = result as { url?: unknown; title?: unknown };
  if (typeof url !== 'string') return null;
  return { url: redactUrl(url), title: typeof title === 'string' ? title.slice(0, 200) : '' };
}

export class SessionActivity {
  private seq = 0;
  private readonly bySession = new Map<string, ActionEntry[]>();
  private readonly listeners = new Set<(entry: ActionEntry) => void>();

  constructor(private readonly clock: Clock) {}

  /** An action started; the returned function records how it ended. */
  begin(sessionId: string, tool: string, rawArguments: unknown): (error: unknown, result?: unknown) => void {
    const started = performance.now();
    const entry: ActionEntry = {
      seq: ++this.seq,
      session_id: sessionId,
      tool,
      arguments: redactArguments(tool, rawArguments),
      started_at: new Date(this.clock.now()).toISOString(),
      outcome: null,
      duration_ms: null,
      page: null,
    };
    this.keep(entry);
    this.tell(entry);
    return (error, result) => {
      entry.outcome = error === null ? 'ok' : isTabgateError(error) ? error.code : 'internal_error';
      entry.duration_ms = Math.round((performance.now() - started) * 10) / 10;
      entry.page = error === null ? pageOf(result) : null;
      this.tell(entry);
    };
  }

  /** The session's last actions, oldest first. */
  timeline(sessionId: string): readonly ActionEntry[] {
    return this.bySession.get(sessionId) ?? [];
  }

  last(sessionId: string): ActionEntry | undefined {
    return this.bySession.get(sessionId)?.at(-1);
  }

  /**
   * The last page any action of the session ended on; not `current` once an action that may have moved
   * the tab since (one not read-only, whose result named no page: a click, a key, a form) started.
   */
  lastPage(sessionId: string): LastPage | null {
    const entries = this.bySession.get(sessionId) ?? [];
    let moved = false;
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i] as ActionEntry;
      if (entry.page) return { ...entry.page, current: !moved };
      if (!getTool(entry.tool)?.annotations.readOnlyHint) moved = true;
    }
    return null;
  }

  forget(sessionId: string): void {
    this.bySession.delete(sessionId);
  }

  /** Hears each action as it starts and again as it ends; returns the unsubscribe function. */
  subscribe(listener: (entry: ActionEntry) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Sessions are kept in the order they last acted, so the one dropped past SESSIONS is the one idle
   * longest: dropping the first one seen instead took the timeline of a session acting all along once
   * a thousand others had acted since its first call.
   */
  private keep(entry: ActionEntry): void {
    let entries = this.bySession.get(entry.session_id);
    if (entries) this.bySession.delete(entry.session_id);
    else {
      entries = [];
      if (this.bySession.size >= SESSIONS)
        this.bySession.delete(this.bySession.keys().next().value as string);
    }
    this.bySession.set(entry.session_id, entries);
    entries.push(entry);
    if (entries.length > PER_SESSION) entries.shift();
  }

  private tell(entry: ActionEntry): void {
    for (const listener of this.listeners) listener(entry);
  }
}
