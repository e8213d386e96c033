/**
 * The tool catalog: the single list of browser_* tools every transport exposes (HTTP, MCP) and every
 * backend implements. Schemas, JSON Schemas and docs are derived from here; nothing re-declares them.
 */
import { z } from 'zod';
import { TabgateError } from '../errors.js';
import type { ToolDefinition } from './define.js';
import { browserClick, browserPress, browserScroll, browserType } from './input.js';
import { browserBack, browserForward, browserNavigate, browserReload } from './navigation.js';
import { browserConsole, browserGetImages, browserScreenshot, browserSnapshot } from './page.js';
import { browserTabActivate, browserTabClose, browserTabNew, browserTabs } from './tabs.js';
import { browserDrag, browserHover } from './pointer.js';
import { browserFillForm, browserSelectOption, browserUpload } from './forms.js';
import { browserWaitFor } from './wait.js';
import { browserDialog, browserDownloads } from './dialogs.js';
import { browserRead } from './read.js';
import { browserApprovalStatus } from './approvals.js';
import { browserRequestTakeover } from './takeover.js';

export const TOOLS = [
  browserNavigate,
  browserSnapshot,
  browserClick,
  browserType,
  browserPress,
  browserHover,
  browserSelectOption,
  browserFillForm,
  browserDrag,
  browserUpload,
  browserScroll,
  browserWaitFor,
  browserDialog,
  browserBack,
  browserForward,
  browserReload,
  browserScreenshot,
  browserTabs,
  browserTabActivate,
  browserTabNew,
  browserTabClose,
  browserDownloads,
  browserConsole,
  browserGetImages,
  browserRead,
  browserApprovalStatus,
  browserRequestTakeover,
] as const;

export type AnyTool = (typeof TOOLS)[number];
export type ToolName = AnyTool['name'];
export type ToolInput<N extends ToolName> = z.infer<Extract<AnyTool, { name: N }>['input']>;
/** What a successful call of `N` returns: `call<N>` on every path answers with this. */
export type ToolResult<N extends ToolName> = z.infer<Extract<AnyTool, { name: N }>['result']>;
export type ToolResults = { [N in ToolName]: ToolResult<N> };
/**
 * The result of a call whose tool name is only known to be a string until the gateway checks it: exact
 * for a tool name, any tool's for a name not checked yet.
 */
export type CallResult<N extends string> = N extends ToolName ? ToolResult<N> : ToolResult<ToolName>;

const BY_NAME: ReadonlyMap<string, ToolDefinition> = new Map(TOOLS.map((tool) => [tool.name, tool]));

export function isToolName(name: unknown): name is ToolName {
  return typeof name === 'string' && BY_NAME.has(name);
}

export function getTool(name: string): ToolDefinition | undefined {
  return BY_NAME.get(name);
}

/** `url: expected string, received number` — the path first, so the agent knows which field to fix. */
export function formatIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .map((issue) => {
      const where = issue.path.length > 0 ? issue.path.map(String).join('.') : '(arguments)';
      return `${where}: ${issue.message}`;
    })
    .join('; ');
}

/**
 * Validates a call's arguments against the tool's schema. An absent body counts as `{}`. Throws
 * `invalid_arguments` naming the field and what is valid; never returns a partially valid value.
 */
export function parseToolArguments<N extends ToolName>(name: N, raw: unknown): ToolInput<N> {
  const tool = BY_NAME.get(name);
  if (!tool) throw new TabgateError('unknown_tool', `No tool named ${JSON.stringify(name)}.`);
  const parsed = tool.input.safeParse(raw ?? {});
  if (!parsed.success) {
    throw new TabgateError(
      'invalid_arguments',
      `Invalid arguments for ${name}: ${formatIssues(parsed.error.issues)}`,
    );
  }
  return parsed.data as ToolInput<N>;
}

export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations: ToolDefinition['annotations'];
}

/** The catalog as plain JSON: what `GET /v1/tools` returns and what MCP `tools/list` is built from. */
export function describeTools(): ToolDescriptor[] {
  return TOOLS.map((tool) => {
    const { $schema: _ignored, ...inputSchema } = z.toJSONSchema(tool.input) as Record<string, unknown>;
    return {
      name: tool.name,
      title: tool.title,
      description: tool.description,
      inputSchema,
      annotations: tool.annotations,
    };
  });
}
