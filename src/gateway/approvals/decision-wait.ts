/**
 * How a call waits for the person's decision on one record of the ApprovalBook (an approval or a
 * takeover): it tells the caller every few seconds that it still waits (MCP progress), and a call that
 * ends first (Stop, delete, the agent's cancel) withdraws the record, so a late decision acts on nothing.
 */
import { TabgateError } from '../../protocol/index.js';
import type { CallSignal } from '../service.js';
import type { ApprovalBook, Settled } from './approval-book.js';

export interface DecisionWait {
  signal?: CallSignal;
  onProgress?: (message: string) => void;
  /** What the progress notification says. */
  waiting: string;
  /** Names the record in the cancellation's message: "approval apr_…", "takeover tko_…". */
  what: string;
  progressEveryMs?: number;
}

/** The person's decision; `call_cancelled` (and the record withdrawn) when the call ends first. */
export async function awaitDecision(book: ApprovalBook, id: string, wait: DecisionWait): Promise<Settled> {
  const say = () => wait.onProgress?.(wait.waiting);
  say();
  const ticker = setInterval(say, wait.progressEveryMs ?? 5_000);
  ticker.unref();
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    if (wait.signal?.aborted) resolve('aborted');
    else wait.signal?.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const outcome = await Promise.race([book.wait(id), aborted]);
    if (outcome === 'aborted') {
      book.withdraw(id);
      throw new TabgateError('call_cancelled', `The call ended while ${wait.what} was pending.`);
    }
    return outcome;
  } finally {
    clearInterval(ticker);
    if (onAbort) wait.signal?.removeEventListener('abort', onAbort);
  }
}
