/**
 * The contract between the router and whatever browser serves a session that is not bound to a user's
 * controller: the local Chromium (default), a cloud provider session, or a CDP URL. Backends never import
 * transports; they receive validated calls and return the tool's result or throw a TabgateError.
 */
import type { SecretFill, ToolInput, ToolName, ToolResults } from '../../protocol/index.js';
import type { ActionGate } from '../../engine/index.js';
import type { CallSignal } from '../call-signal.js';

/**
 * Each tool's input, by name. Read through this map (`ToolInputs[N]`) a `ToolCall<'browser_click'>` is
 * also a `ToolCall`, which `ToolInput<N>`, a conditional type, would not let the compiler see.
 */
export type ToolInputs = { [N in ToolName]: ToolInput<N> };

export interface ToolCall<N extends ToolName = ToolName> {
  sessionId: string;
  tool: N;
  /** Already validated against the catalog schema. */
  args: ToolInputs[N];
  /** The agent's tool-call id when it sent one; used for audit and cancel. */
  toolCallId: string | null;
  /** Aborted when the caller goes away (HTTP client disconnect, MCP cancel). */
  signal?: CallSignal;
  /** The vault secret a `browser_type {secret}` fills, resolved by the gateway; never in `args`. */
  secret?: SecretFill;
  /** The session's approval gate: consequential inputs wait for the owner (docs/safety.md). */
  approvals?: ActionGate;
}

/** What serves a session's browser, for `GET /v1/sessions/{id}`. */
export interface SessionBrowserInfo {
  /** `local`, `cdp-url`, `camofox` or the provider's name. */
  backend: string;
  /** The cloud provider, when one serves it. */
  provider?: string;
  /** What the provider granted (stealth, proxies, …). */
  features?: Record<string, unknown>;
  /** Where a person can watch the browser, when the provider has such a view. */
  live_url?: string;
  /** The provider's billing reference for this session, if it gave one. */
  external_call_id?: string;
}

export interface BrowserBackend {
  /** `local`, a provider name, or `cdp-url`: shown in logs and errors. */
  readonly name: string;
  /** Whether this backend can run the tool at all (absent: every tool of the catalog). */
  supports?(tool: ToolName): boolean;
  /**
   * Runs one tool call in the session's browser, opening it lazily on first use. Its result has the
   * catalog's shape for that tool (`src/protocol/tools/results.ts`), checked by the compiler.
   */
  call<N extends ToolName>(call: ToolCall<N>): Promise<ToolResults[N]>;
  /** Closes the session's browser (context or provider session) if open. Never throws. */
  closeSession(sessionId: string): Promise<void>;
  /** Closes everything this backend opened (shutdown). Never throws; leaves no browser process behind. */
  close(): Promise<void>;
  /** The browser serving a session that has made a call; backends without details need not say. */
  describeSession?(sessionId: string): SessionBrowserInfo | undefined;
  /**
   * A backend that chooses each new session's browser when it first calls (resolve.ts) chooses it now
   * and names it, so that first call is logged and judged as the browser that will serve it.
   */
  prepare?(sessionId: string): Promise<string>;
}

/**
 * A backend that builds its results from another API's loose JSON (Camofox's REST answers), so the
 * compiler cannot tie them to the catalog; `checkedResults` (checked-results.ts) makes it a
 * BrowserBackend.
 */
export interface UntypedBackend extends Omit<BrowserBackend, 'call'> {
  call(call: ToolCall): Promise<unknown>;
}
