/** Small helpers for reading MCP tool results in tests. */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

export interface ToolOutcome {
  isError: boolean;
  text: string;
  images: { data: string; mimeType: string }[];
}

export async function callTool(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<ToolOutcome> {
  const result = await client.callTool({ name, arguments: args });
  const content = (result.content ?? []) as {
    type: string;
    text?: string;
    data?: string;
    mimeType?: string;
  }[];
  return {
    isError: result.isError === true,
    text: content
      .filter((part) => part.type === 'text')
      .map((part) => part.text ?? '')
      .join('\n'),
    images: content
      .filter((part) => part.type === 'image')
      .map((part) => ({ data: part.data ?? '', mimeType: part.mimeType ?? '' })),
  };
}

/** The ref of the first snapshot line that contains `needle`, e.g. `@e4`. */
export function refOf(snapshot: string, needle: string): string {
  const line = snapshot.split('\n').find((l) => l.includes(needle) && /@e\d+/.test(l));
  const ref = line && /@e\d+/.exec(line)?.[0];
  if (!ref) throw new Error(`no ref for ${JSON.stringify(needle)} in snapshot:\n${snapshot}`);
  return ref;
}
