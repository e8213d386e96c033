import type { z } from 'zod';

/** MCP-style hints about what a tool does; rendered as MCP annotations. */
export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolDefinition<
  Name extends string = string,
  Input extends z.ZodType = z.ZodType,
  Result extends z.ZodType = z.ZodType,
> {
  readonly name: Name;
  readonly title: string;
  /** Written for models: what the tool does and when to use it, in a sentence or two. */
  readonly description: string;
  readonly input: Input;
  /** What a successful call returns, on every backend and from every controller. */
  readonly result: Result;
  readonly annotations: ToolAnnotations;
}

export function defineTool<const Name extends string, Input extends z.ZodType, Result extends z.ZodType>(
  tool: ToolDefinition<Name, Input, Result>,
): ToolDefinition<Name, Input, Result> {
  return tool;
}
