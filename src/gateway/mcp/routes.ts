/**
 * `/mcp` on the gateway's route table: behind the same Host, Origin, body-limit and bearer guards as
 * every other route, then handed to the streamable HTTP endpoint with the body the gateway already read.
 */
import { TabgateError } from '../../protocol/index.js';
import type { Route, RouteContext } from '../http/route-table.js';
import { MCP_PATH, type McpHttpEndpoint } from './http-endpoint.js';

export function mcpRoutes(endpoint: McpHttpEndpoint): Route[] {
  const handle = async (ctx: RouteContext): Promise<void> => {
    if (!ctx.caller) throw new TabgateError('invalid_api_key', 'Missing or invalid API key.');
    if (ctx.body.kind === 'malformed') throw new TabgateError('invalid_json', 'The body is not valid JSON.');
    const body = ctx.body.kind === 'json' ? ctx.body.value : undefined;
    await endpoint.handle(ctx.req, ctx.res, ctx.caller, body);
  };
  return (['POST', 'GET', 'DELETE'] as const).map((method) => ({ method, path: MCP_PATH, handle }));
}
