/**
 * Takeovers (docs/safety.md "Takeover"): `browser_request_takeover` pauses a session while the person
 * does one step on its page themselves — log in, solve a CAPTCHA — and resumes when they mark it done.
 * A takeover is a record of kind `takeover` in the ApprovalBook, so every channel that decides approvals
 * (the extension's popup, the dashboard, `tabgate approvals`) shows and decides it too: approving it
 * means done, denying it declined. One session has at most one takeover pending; while it is, the
 * session's other calls are refused (`takeover_pending`), so nothing the agent does touches the page
 * the person is using, nor reads what they type into it.
 */
import { TAKEOVER_TOOL, TabgateError, type ApprovalRecord } from '../../protocol/index.js';
import type { Logger } from '../../log/logger.js';
import type { CallSignal } from '../service.js';
import type { ApprovalBook } from './approval-book.js';
import { awaitDecision } from './decision-wait.js';

export interface TakeoverAsk {
  sessionId: string;
  /** The agent's words, shown to the person as untrusted text. */
  reason: string;
  /** The call's own wait, at most the configured one. */
  timeoutS?: number;
  /** Where the page is when the person is asked (`''` when the browser could not tell). */
  frameOrigin: string;
  signal?: CallSignal;
  /** Told while the call waits (MCP progress notifications). */
  onProgress?: (message: string) => void;
}

export class Takeovers {
  /** The pending takeover of each paused session. */
  private readonly pending = new Map<string, string>();

  constructor(
    private readonly book: ApprovalBook,
    private readonly o: { timeoutS: number; log: Logger; progressEveryMs?: number },
  ) {}

  /** The takeover that pauses this session now, if one does. */
  pendingIn(sessionId: string): ApprovalRecord | null {
    const id = this.pending.get(sessionId);
    // A takeover asked on another node of a cluster is in this node's replica of the book.
    if (id === undefined) return this.book.pendingTakeover(sessionId);
    const record = this.book.get(id);
    return record.status === 'pending' ? record : null;
  }

  /** Refuses a call of a paused session before it reaches any browser. */
  refuseWhilePaused(sessionId: string, tool: string): void {
    const record = this.pendingIn(sessionId);
    if (!record) return;
    throw new TabgateError(
      'takeover_pending',
      `The person is doing a step on this session's page (takeover ${record.approval_id}, until ${record.expires_at}); ${tool} was not run.`,
    );
  }

  /** The wait a call asks for, checked against the configured one (bad input changes nothing). */
  windowS(asked: number | undefined): number {
    if (asked === undefined) return this.o.timeoutS;
    if (asked > this.o.timeoutS)
      throw new TabgateError(
        'invalid_arguments',
        `timeout_s: at most ${this.o.timeoutS} on this gateway (safety.takeover_timeout_s)`,
      );
    return asked;
  }

  /**
   * Asks the person and waits: resolves with the record once they mark the step done; throws
   * `takeover_declined`, `takeover_timeout`, or `call_cancelled` when the call ends first (Stop, delete,
   * the agent's cancel), which withdraws the takeover so a late "done" resumes nothing.
   */
  async run(ask: TakeoverAsk, seen: (record: ApprovalRecord) => void): Promise<ApprovalRecord> {
    const windowS = this.windowS(ask.timeoutS);
    this.refuseWhilePaused(ask.sessionId, TAKEOVER_TOOL);
    const record = this.book.open(
      {
        sessionId: ask.sessionId,
        tool: TAKEOVER_TOOL,
        // Each takeover is its own: nothing else is ever bound to it, so no argument hash is needed.
        argumentHash: '',
        ref: null,
        frameOrigin: ask.frameOrigin,
      },
      { ref: null, frameOrigin: ask.frameOrigin, classes: [], summary: ask.reason },
      { kind: 'takeover', ttlMs: windowS * 1000 },
    );
    const id = record.approval_id;
    seen(record);
    this.pending.set(ask.sessionId, id);
    this.o.log.info('session paused for a takeover by the person', {
      session_id: ask.sessionId,
      takeover_id: id,
      timeout_s: windowS,
    });
    try {
      const outcome = await awaitDecision(this.book, id, {
        ...(ask.signal ? { signal: ask.signal } : {}),
        ...(ask.onProgress ? { onProgress: ask.onProgress } : {}),
        waiting: `Waiting for the person to do the step and mark it done (${id}).`,
        what: `takeover ${id}`,
        ...(this.o.progressEveryMs !== undefined ? { progressEveryMs: this.o.progressEveryMs } : {}),
      });
      if (outcome === 'denied')
        throw new TabgateError('takeover_declined', `The person declined the step (takeover ${id}).`, {
          approval_id: id,
        });
      if (outcome === 'expired')
        throw new TabgateError(
          'takeover_timeout',
          `Nobody marked the step done within ${windowS} s (takeover ${id}).`,
          { approval_id: id },
        );
      // Done: used at once, so the record reads as finished everywhere.
      await this.book.use(id);
      return this.book.get(id);
    } finally {
      if (this.pending.get(ask.sessionId) === id) this.pending.delete(ask.sessionId);
      seen(this.book.get(id));
    }
  }
}

/** The page a session's browser shows: its active tab's address and title, or null if unknown. */
export type PageReader = () => Promise<{ url: string; title: string } | null>;

function originOf(url: string | undefined): string {
  if (!url) return '';
  try {
    const origin = new URL(url).origin;
    return origin === 'null' ? '' : origin;
  } catch {
    return '';
  }
}

/**
 * One `browser_request_takeover` call, on whichever browser serves the session: the page is read before
 * (its origin goes on the record the person sees) and after (the agent learns where the person left
 * it: the address and title, never what they typed). `ended` receives the record for the audit row.
 */
export async function requestTakeover(
  takeovers: Takeovers,
  ask: Omit<TakeoverAsk, 'frameOrigin'>,
  readPage: PageReader,
  ended: (record: ApprovalRecord) => void,
): Promise<{ done: true; takeover_id: string; url: string | null; title: string | null }> {
  // Bad input and a paused session are refused before anything is read.
  takeovers.windowS(ask.timeoutS);
  takeovers.refuseWhilePaused(ask.sessionId, TAKEOVER_TOOL);
  const before = await readPage();
  const record = await takeovers.run({ ...ask, frameOrigin: originOf(before?.url) }, ended);
  const after = await readPage();
  return {
    done: true,
    takeover_id: record.approval_id,
    url: after?.url ?? null,
    title: after?.title ?? null,
  };
}
