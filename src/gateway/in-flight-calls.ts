/**
 * The tool calls running in each session, so that the owner's Stop (and deleting a session) can end them
 * at once. Each call runs under a signal of its own that also follows its caller's: Stop aborts it (the
 * broker sends the controller a cancel frame, a CDP backend stops waiting and gives back its slot) and
 * answers the caller with Stop's error right away, without waiting for the browser to notice.
 */
import type { TabgateError } from '../protocol/index.js';
import type { CallSignal } from './service.js';

export type CallRoute = 'controller' | 'backend';

/** One running call: its signal (the caller's abort or Stop's) and how Stop answers its caller. */
class InFlightCall implements CallSignal {
  private stopped = false;
  private listeners: (() => void)[] = [];
  fail: (error: TabgateError) => void = () => undefined;

  constructor(
    private readonly caller: CallSignal | undefined,
    /** Where the call went: a user's browser (`controller`) or the gateway's own (`backend`). */
    readonly route: CallRoute,
  ) {}

  get aborted(): boolean {
    return this.stopped || this.caller?.aborted === true;
  }

  addEventListener(type: 'abort', listener: () => void): void {
    if (this.aborted) return;
    this.listeners.push(listener);
    this.caller?.addEventListener(type, listener, { once: true });
  }

  removeEventListener(type: 'abort', listener: () => void): void {
    const index = this.listeners.indexOf(listener);
    if (index !== -1) this.listeners.splice(index, 1);
    this.caller?.removeEventListener(type, listener);
  }

  stop(error: TabgateError): void {
    if (this.aborted) return;
    this.stopped = true;
    const listeners = this.listeners;
    this.listeners = [];
    for (const listener of listeners) {
      this.caller?.removeEventListener('abort', listener);
      listener();
    }
    this.fail(error);
  }
}

export class InFlightCalls {
  private readonly bySession = new Map<string, Set<InFlightCall>>();

  /** Told whenever a session's count of running calls changes (the dashboard's acting/idle). */
  constructor(private readonly onChange: (sessionId: string, running: number) => void = () => undefined) {}

  /**
   * Runs `work` as one of the session's calls. The answer is the work's, unless the session is stopped
   * first: then it is Stop's error at once, and whatever the work ends with later is dropped.
   */
  run<T>(
    sessionId: string,
    signal: CallSignal | undefined,
    work: (signal: CallSignal) => Promise<T>,
    route: CallRoute = 'backend',
  ): Promise<T> {
    const call = new InFlightCall(signal, route);
    let calls = this.bySession.get(sessionId);
    if (!calls) this.bySession.set(sessionId, (calls = new Set()));
    calls.add(call);
    this.onChange(sessionId, calls.size);
    const done = () => {
      const current = this.bySession.get(sessionId);
      if (!current?.delete(call)) return;
      if (current.size === 0) this.bySession.delete(sessionId);
      this.onChange(sessionId, current.size);
    };
    return new Promise<T>((resolve, reject) => {
      call.fail = (error) => {
        done();
        reject(error);
      };
      let running: Promise<T>;
      try {
        running = work(call);
      } catch (error) {
        running = Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
      running.then(
        (result) => {
          done();
          resolve(result);
        },
        (error: unknown) => {
          done();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /**
   * Ends every running call of the session with `error` (or the error for the call's route); returns how
   * many there were.
   */
  cancel(sessionId: string, error: TabgateError | ((route: CallRoute) => TabgateError)): number {
    const calls = this.bySession.get(sessionId);
    if (!calls) return 0;
    const running = [...calls];
    for (const call of running) call.stop(typeof error === 'function' ? error(call.route) : error);
    return running.length;
  }

  /** How many calls the session is running now. */
  running(sessionId: string): number {
    return this.bySession.get(sessionId)?.size ?? 0;
  }
}
