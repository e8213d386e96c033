/**
 * `/mcp` on the gateway's route table: behind the same Host, Origin, body-limit and bearer guards as
 * every other route, then handed to the streamable HTTP endpoint with the body the gateway already read.
 */
import { TabgateError } from '../../protocol/index.js';
import { sendJson } from '../http/respond.js';
import type { Route, RouteContext } from '../http/route-table.js';
import { MCP_PATH, type McpHttpEndpoint } from './http-endpoint.js';

/** JSON-RPC's code for a body that is not JSON (the SDK's ErrorCode.ParseError: its module loads lazily). */
const JSON_RPC_PARSE_ERROR = -32700;

export function mcpRoutes(endpoint: McpHttpEndpoint): Route[] {
  const handle = async (ctx: RouteContext): Promise<void> => {
    if (!ctx.caller) throw new TabgateError('invalid_api_key', 'Missing or invalid API key.');
    // Answered as the SDK answers a body it cannot parse: JSON-RPC's parse error, which an MCP client
    // reads, rather than the REST routes' error body.
    if (ctx.body.kind === 'malformed') {
      sendJson(ctx.res, 400, {
        jsonrpc: '2.0',
        id: null,
        error: { code: JSON_RPC_PARSE_ERROR, message: 'Parse error: Invalid JSON' },
      });
      return;
    }
    const body = ctx.body.kind === 'json' ? ctx.body.value : undefined;
    await endpoint.handle(ctx.req, ctx.res, ctx.caller, body);
  };
  return (['POST', 'GET', 'DELETE'] as const).map((method) => ({ method, path: MCP_PATH, handle }));
}
