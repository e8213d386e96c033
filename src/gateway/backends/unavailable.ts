import { TabgateError, type ErrorCode, type ToolName } from '../../protocol/index.js';
import type { BrowserBackend, ToolCall } from './backend.js';

/** The backend of last resort: every call fails with `backend_unavailable` and a reason a person can act on. */
export class UnavailableBackend implements BrowserBackend {
  readonly name = 'unavailable';

  constructor(
    private readonly reason: string,
    private readonly code: ErrorCode = 'backend_unavailable',
  ) {}

  async call<N extends ToolName>(call: ToolCall<N>): Promise<never> {
    throw new TabgateError(this.code, `${call.tool} cannot run: ${this.reason}`);
  }

  async closeSession(): Promise<void> {}

  async close(): Promise<void> {}
}
