/**
 * One MCP server per MCP connection, bound to one tabgate session. Tools, their JSON Schemas and
 * annotations come from the one catalog; calls go through the AgentPort, so the same server serves
 * stdio (in-process or attached to a gateway) and streamable HTTP.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { describeTools, isToolName, MAX_TOOL_CALL_ID_CHARS } from '../../protocol/index.js';
import type { AgentPort } from './agent-port.js';
import { renderToolError, renderToolResult } from './render.js';

export const MCP_SERVER_NAME = 'tabgate';
export const MCP_SERVER_VERSION = '0.1.0';

const INSTRUCTIONS =
  'Browser tools. Start with browser_navigate, read the page with browser_snapshot, act with browser_click/browser_type/browser_press using refs like @e3 from the latest snapshot. Refs go stale when the page changes: take a new snapshot.';

/** The tool list every client sees, computed once: it is a pure function of the catalog. */
export const MCP_TOOLS: Tool[] = describeTools().map((tool) => ({
  name: tool.name,
  title: tool.title,
  description: tool.description,
  inputSchema: compactSchema(tool.inputSchema) as Tool['inputSchema'],
  // The title is the tool's own (above); repeating it in the annotations costs every tool list.
  annotations: withoutDefaultHints(tool.annotations),
}));

/**
 * A tool's input schema as MCP clients get it, without what says nothing to a model and costs every tool
 * list (27 tools): `additionalProperties: false` (the gateway refuses an unknown argument itself, with
 * `invalid_arguments` naming it, whatever the client sends), an empty `properties`, and a `maximum` of
 * `Number.MAX_SAFE_INTEGER` (the bound every integer has). `GET /v1/tools` keeps the full schemas.
 */
function compactSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(compactSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema as Record<string, unknown>)) {
    if (key === 'additionalProperties' && value === false) continue;
    if (key === 'maximum' && value === Number.MAX_SAFE_INTEGER) continue;
    if (
      key === 'properties' &&
      typeof value === 'object' &&
      value !== null &&
      Object.keys(value).length === 0
    )
      continue;
    kept[key] = key === 'properties' ? mapValues(value as object, compactSchema) : compactSchema(value);
  }
  return kept;
}

function mapValues(object: object, map: (value: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(object).map(([key, value]) => [key, map(value)]));
}

/**
 * MCP defines each hint's default (readOnly false, destructive true, idempotent false, openWorld true);
 * a hint that says its default says nothing, and costs every tool list of every client.
 */
function withoutDefaultHints(annotations: Tool['annotations']): Tool['annotations'] {
  const defaults: Record<string, boolean> = {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: false,
    openWorldHint: true,
  };
  const kept = Object.entries(annotations ?? {}).filter(([key, value]) => defaults[key] !== value);
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

export interface McpSessionBinding {
  /** The tabgate session this MCP connection acts in; resolved lazily so HTTP can bind at initialize. */
  sessionId(): Promise<string>;
}

/**
 * The call's tool_call_id: its JSON-RPC request id, when that fits what `X-Tool-Call-Id` carries (1-256
 * printable ASCII characters, no space at either end), as `tabgate mcp --gateway` sends it. Any id is
 * valid JSON-RPC: a call whose id does not fit runs all the same, without a tool_call_id.
 */
function toolCallIdOf(requestId: string | number): string | null {
  const id = String(requestId);
  return id.length <= MAX_TOOL_CALL_ID_CHARS && /^[!-~](?:[ -~]*[!-~])?$/.test(id) ? id : null;
}

export function createMcpServer(port: AgentPort, binding: McpSessionBinding): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, version: MCP_SERVER_VERSION },
    { capabilities: { tools: { listChanged: true } }, instructions: INSTRUCTIONS },
  );
  // What the client was last told; a call after which the session runs other tools (a tab of the
  // user's was shared with it, or it was released) tells the client to list them again.
  let listed: string | null = null;
  const runnable = async (): Promise<Tool[]> => {
    try {
      const names = new Set(await port.toolsFor(await binding.sessionId()));
      return MCP_TOOLS.filter((tool) => names.has(tool.name));
    } catch {
      // No session yet (or it is gone): the whole catalog, as before a session existed.
      return MCP_TOOLS;
    }
  };
  const key = (tools: Tool[]) => tools.map((tool) => tool.name).join(',');
  const noticeChange = async () => {
    if (listed === null) return;
    const now = key(await runnable());
    if (now === listed) return;
    listed = now;
    await server.sendToolListChanged().catch(() => undefined);
  };
  // Told the moment a tab is shared or sharing stops, not only at the next call.
  let unwatch: (() => void) | null = null;
  const watch = async () => {
    if (unwatch || !port.onToolsChanged) return;
    const sessionId = await binding.sessionId().catch(() => null);
    if (sessionId === null || unwatch) return;
    unwatch = port.onToolsChanged(sessionId, () => void noticeChange());
  };
  server.onclose = () => {
    unwatch?.();
    unwatch = () => undefined;
  };
  server.setRequestHandler(ListToolsRequestSchema, async () => {
    const tools = await runnable();
    listed = key(tools);
    await watch();
    return { tools };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const { name, arguments: args } = request.params;
    // An unknown tool is the client's protocol mistake, not a tool failure the model should read.
    if (!isToolName(name)) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}`);
    try {
      const sessionId = await binding.sessionId();
      const progressToken = request.params._meta?.progressToken;
      let progress = 0;
      const result = await port.callTool(sessionId, name, args ?? {}, {
        toolCallId: toolCallIdOf(extra.requestId),
        signal: extra.signal,
        // A call waiting for the owner's approval says so, so the client neither hangs up nor times out.
        ...(progressToken !== undefined
          ? {
              onProgress: (message: string) =>
                void extra
                  .sendNotification({
                    method: 'notifications/progress',
                    params: { progressToken, progress: ++progress, message },
                  })
                  .catch(() => undefined),
            }
          : {}),
      });
      void noticeChange();
      return renderToolResult(name, result);
    } catch (error) {
      void noticeChange();
      return renderToolError(error);
    }
  });
  return server;
}
