/**
 * The adapter that makes an untyped backend (Camofox, whose results are built from its REST answers) a
 * BrowserBackend: each result is held to the tool's result schema from the catalog. A result that does
 * not fit is logged once per tool (where it is wrong, never what it holds: results carry page text) and
 * still returned as it was, so the adapter changes no answer; the conformance suite is what fails on it.
 */
import type { z } from 'zod';
import { formatIssues, getTool, type ToolName, type ToolResults } from '../../protocol/index.js';
import type { Logger } from '../../log/logger.js';
import type { BrowserBackend, SessionBrowserInfo, ToolCall, UntypedBackend } from './backend.js';

export class CheckedResults implements BrowserBackend {
  /** Tools whose misfit was logged already: one warning each, not one per call. */
  private readonly warned = new Set<ToolName>();

  constructor(
    private readonly backend: UntypedBackend,
    private readonly log: Logger,
  ) {}

  get name(): string {
    return this.backend.name;
  }

  supports(tool: ToolName): boolean {
    return this.backend.supports?.(tool) ?? true;
  }

  async call<N extends ToolName>(call: ToolCall<N>): Promise<ToolResults[N]> {
    const result = await this.backend.call(call);
    const schema: z.ZodType | undefined = getTool(call.tool)?.result;
    const checked = schema?.safeParse(result);
    if (checked && !checked.success && !this.warned.has(call.tool)) {
      this.warned.add(call.tool);
      this.log.warn('backend result does not fit the catalog', {
        backend: this.backend.name,
        tool: call.tool,
        issues: formatIssues(checked.error.issues).slice(0, 300),
      });
    }
    return result as ToolResults[N];
  }

  closeSession(sessionId: string): Promise<void> {
    return this.backend.closeSession(sessionId);
  }

  close(): Promise<void> {
    return this.backend.close();
  }

  describeSession(sessionId: string): SessionBrowserInfo | undefined {
    return this.backend.describeSession?.(sessionId);
  }
}
