/**
 * A controller's answer to a tool call, held to the tool's result schema before it reaches the agent:
 * tabgate's extension answers in the catalog's shapes; another protocol v1 controller may answer a few
 * tools in a known variant, which is rewritten (and logged once per tool and field, never a value:
 * results carry page text); anything else fails the call with `controller_result_invalid`, because
 * an agent must not act on a result nobody can read.
 */
import type { z } from 'zod';
import { getTool, TabgateError, type ToolName, type ToolResult } from '../../protocol/index.js';
import type { Logger } from '../../log/logger.js';
import { rewriteVariant } from './result-variants.js';

/** Where the result is wrong and how, never what it holds: `tabs.0.id: expected number`. */
function describeIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 3)
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(result)';
      return `${where}: ${issue.code === 'invalid_type' ? `expected ${issue.expected}` : issue.code}`;
    })
    .join('; ');
}

export class ControllerResults {
  /** `tool.field` of each variant already logged: one notice each, not one per call. */
  private readonly noticed = new Set<string>();

  constructor(private readonly log: Logger) {}

  accept<N extends ToolName>(tool: N, args: Record<string, unknown>, raw: unknown): ToolResult<N> {
    const schema = getTool(tool)?.result;
    if (!schema) throw new TabgateError('unknown_tool', `No tool named ${JSON.stringify(tool)}.`);
    const parsed = schema.safeParse(raw);
    if (parsed.success) return parsed.data as ToolResult<N>;
    const rewritten = rewriteVariant(tool, raw, args);
    const normalised = rewritten ? schema.safeParse(rewritten.value) : null;
    if (rewritten && normalised?.success) {
      const key = `${tool}.${rewritten.field}`;
      if (!this.noticed.has(key)) {
        this.noticed.add(key);
        this.log.info('controller result normalised from a known variant', { tool, field: rewritten.field });
      }
      return normalised.data as ToolResult<N>;
    }
    throw new TabgateError(
      'controller_result_invalid',
      `the user's browser answered ${tool} with a result that does not fit its schema (${describeIssues(parsed.error.issues)}); it may have acted`,
    );
  }
}
