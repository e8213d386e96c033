/**
 * Conformance sessions straight on a backend (no gateway in between): each a session id of its own,
 * arguments checked by the tool catalog as the gateway would, and a failure that is not one of
 * tabgate's typed errors turned into a plain Error so the case reports it.
 */
import type { BrowserBackend } from '../../src/gateway/backends/backend.js';
import { isTabgateError, parseToolArguments, type ToolName } from '../../src/protocol/index.js';
import type { ConformanceSession } from './harness.js';

export function backendSessions(backend: BrowserBackend, prefix: string): () => Promise<ConformanceSession> {
  let sessions = 0;
  return async () => {
    const sessionId = `${prefix}-${++sessions}`;
    return {
      async call(tool: string, args: Record<string, unknown> = {}) {
        try {
          const parsed = parseToolArguments(tool as ToolName, args);
          return await backend.call({ sessionId, tool: tool as ToolName, args: parsed, toolCallId: null });
        } catch (error) {
          throw isTabgateError(error) ? error : new Error(String(error));
        }
      },
      close: () => backend.closeSession(sessionId),
    };
  };
}
