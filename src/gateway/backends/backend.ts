/**
 * The contract between the router and whatever browser serves a session that is not bound to a user's
 * controller: the local Chromium (default), a cloud provider session, or a CDP URL. Backends never import
 * transports; they receive validated calls and return the tool's result or throw a TabgateError.
 */
import type { ToolInput, ToolName } from '../../protocol/index.js';
import type { CallSignal } from '../service.js';

export interface ToolCall<N extends ToolName = ToolName> {
  sessionId: string;
  tool: N;
  /** Already validated against the catalog schema. */
  args: ToolInput<N>;
  /** The agent's tool-call id when it sent one; used for audit and cancel. */
  toolCallId: string | null;
  /** Aborted when the caller goes away (HTTP client disconnect, MCP cancel). */
  signal?: CallSignal;
}

export interface BrowserBackend {
  /** `local`, a provider name, or `cdp-url`: shown in logs and errors. */
  readonly name: string;
  /** Whether this backend can run the tool at all (absent: every tool of the catalog). */
  supports?(tool: ToolName): boolean;
  /** Runs one tool call in the session's browser, opening it lazily on first use. */
  call(call: ToolCall): Promise<unknown>;
  /** Closes the session's browser (context or provider session) if open. Never throws. */
  closeSession(sessionId: string): Promise<void>;
  /** Closes everything this backend opened (shutdown). Never throws; leaves no browser process behind. */
  close(): Promise<void>;
}
