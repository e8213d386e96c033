/** The tool catalog and `POST /v1/sessions/{id}/tools/{tool}` → `{ok: true, result}`. */
import { describeTools, MAX_TOOL_CALL_ID_CHARS, TabgateError } from '../../../protocol/index.js';
import type { GatewayService } from '../../service.js';
import type { Route } from '../route-table.js';

export function toolRoutes(service: GatewayService): Route[] {
  const catalog = { tools: describeTools() };
  return [
    {
      method: 'GET',
      path: '/v1/tools',
      quietLog: true,
      // `?session=<id>`: only the tools that session can run where its calls go now.
      handle: async (ctx) => {
        const sessionId = new URL(ctx.req.url ?? '/', 'http://x').searchParams.get('session');
        if (sessionId === null) return { status: 200, body: catalog };
        if (!ctx.caller) throw new Error('route requires a caller');
        const runnable = new Set<string>(await service.toolsFor(ctx.caller, sessionId));
        return {
          status: 200,
          body: { session_id: sessionId, tools: catalog.tools.filter((tool) => runnable.has(tool.name)) },
        };
      },
    },
    {
      method: 'POST',
      path: '/v1/sessions/:id/tools/:tool',
      handle: async (ctx) => {
        const header = ctx.req.headers['x-tool-call-id'];
        const toolCallId = Array.isArray(header) ? header[0] : header;
        if (
          toolCallId !== undefined &&
          (toolCallId.length === 0 || toolCallId.length > MAX_TOOL_CALL_ID_CHARS)
        ) {
          throw new TabgateError(
            'invalid_request',
            `X-Tool-Call-Id must be 1-${MAX_TOOL_CALL_ID_CHARS} characters.`,
          );
        }
        if (ctx.body.kind === 'malformed')
          throw new TabgateError('invalid_json', 'The body is not valid JSON.');
        const raw = ctx.body.kind === 'json' ? ctx.body.value : {};
        if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
          throw new TabgateError('invalid_json', 'The tool arguments must be a JSON object.');
        }
        if (!ctx.caller) throw new Error('route requires a caller');
        const result = await service.callTool({
          caller: ctx.caller,
          sessionId: ctx.params.id ?? '',
          tool: ctx.params.tool ?? '',
          arguments: raw,
          toolCallId: toolCallId ?? null,
          signal: ctx.signal,
        });
        return { status: 200, body: { ok: true, result } };
      },
    },
  ];
}
