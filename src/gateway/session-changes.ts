/**
 * Tells whoever shows a session's tool list (an MCP connection) that the tools the session can run may
 * have changed: a user's tab was shared with it, its controller came back, or the user stopped sharing.
 * Advisory: a listener reads the list again and compares, so a spurious notice costs one read.
 */
import { EventEmitter } from 'node:events';
import type { BindingObserver } from './session-binding.js';

export class SessionChanges {
  // One listener per MCP connection on its session: as many as there are connections.
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  /** Calls `listener` after each change to the session; returns what stops it. */
  on(sessionId: string, listener: () => void): () => void {
    this.emitter.on(sessionId, listener);
    return () => void this.emitter.off(sessionId, listener);
  }

  /** `inner` (which records the binding) first, then the listeners, who then read the new state. */
  observing(inner: BindingObserver): BindingObserver {
    return {
      bound: (scope) => {
        inner.bound(scope);
        this.emitter.emit(scope.session_id);
      },
      released: (scope, why) => {
        inner.released(scope, why);
        this.emitter.emit(scope.session_id);
      },
    };
  }
}
