/**
 * How tool results and failures look to an MCP client: snapshots as plain text a model reads directly,
 * screenshots as image content, everything else as compact JSON; failures as `isError` results that say
 * what went wrong and what to do next. The only place MCP output is shaped.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { hintOf, isTabgateError, type SnapshotResult } from '../../protocol/index.js';

type Content = CallToolResult['content'][number];

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isSnapshotResult(value: unknown): value is SnapshotResult {
  return isRecord(value) && typeof value.snapshot === 'string' && typeof value.url === 'string';
}

/**
 * The snapshot text headed by the page. A cut page already ends with the pager's note on how to read on
 * (every transport carries it), so none is added here.
 */
export function snapshotText(snapshot: SnapshotResult): string {
  return `Page: ${snapshot.title || '(untitled)'} — ${snapshot.url}\n${snapshot.snapshot}`;
}

function imageFrom(result: Record<string, unknown>): Content | null {
  if (typeof result.data === 'string' && typeof result.mime_type === 'string') {
    return { type: 'image', data: result.data, mimeType: result.mime_type };
  }
  // A protocol v1 controller answers with a data URL.
  const dataUrl = result.dataUrl ?? result.data_url;
  if (typeof dataUrl === 'string') {
    const match = /^data:(image\/[a-z+.-]+);base64,(.*)$/s.exec(dataUrl);
    if (match?.[1] && match[2]) return { type: 'image', data: match[2], mimeType: match[1] };
  }
  return null;
}

function withoutKeys(value: Record<string, unknown>, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(Object.entries(value).filter(([key]) => !keys.includes(key)));
}

/** Things that happened on the page since the last call (a dialog dismissed, a tab opened). */
function noticesOf(result: unknown): string[] {
  if (!isRecord(result) || !Array.isArray(result.notices)) return [];
  return result.notices.filter((notice): notice is string => typeof notice === 'string');
}

/** `, redirected from: A (HTTP 302) → B (meta refresh)`: the way a login bounce is told apart. */
function redirectLine(redirects: unknown): string {
  if (!Array.isArray(redirects) || redirects.length === 0) return '';
  const hops = redirects.filter(isRecord).map((hop) => {
    const how = hop.via === 'http' ? `HTTP ${String(hop.status)}` : String(hop.via).replace('_', ' ');
    return `${String(hop.url)} (${how})`;
  });
  return `, redirected from: ${hops.join(' → ')}`;
}

export function renderToolResult(tool: string, result: unknown): CallToolResult {
  const rendered = renderContent(tool, result);
  const notices = noticesOf(result);
  if (notices.length > 0) {
    rendered.content.push({ type: 'text', text: notices.map((notice) => `Notice: ${notice}`).join('\n') });
  }
  // Said last, where a model reads what to do next: nothing but browser_dialog moves the page on.
  if (isRecord(result) && typeof result.dialog === 'string') {
    rendered.content.push({
      type: 'text',
      text: `Dialog open: ${result.dialog}. Answer it with browser_dialog (accept or dismiss).`,
    });
  }
  return rendered;
}

function renderContent(tool: string, result: unknown): CallToolResult {
  if (typeof result === 'string') return { content: [{ type: 'text', text: result }] };
  if (isRecord(result)) {
    if (isSnapshotResult(result)) return { content: [{ type: 'text', text: snapshotText(result) }] };
    if (tool === 'browser_navigate' && isSnapshotResult(result.snapshot)) {
      const status = typeof result.status === 'number' ? ` (HTTP ${result.status})` : '';
      return {
        content: [
          {
            type: 'text',
            text: `Navigated to ${String(result.url)}${status}${redirectLine(result.redirects)}\n${snapshotText(result.snapshot)}`,
          },
        ],
      };
    }
    const image = imageFrom(result);
    if (image) {
      const rest = withoutKeys(result, ['data', 'dataUrl', 'data_url', 'mime_type', 'notices', 'dialog']);
      return { content: [image, { type: 'text', text: JSON.stringify(rest) }] };
    }
    // A reference controller's snapshot carries its outline as `text`.
    if (tool === 'browser_snapshot' && typeof result.text === 'string') {
      return { content: [{ type: 'text', text: result.text }] };
    }
  }
  const plain = isRecord(result) ? withoutKeys(result, ['notices', 'dialog']) : result;
  return { content: [{ type: 'text', text: JSON.stringify(plain ?? null) }] };
}

/** A failure the agent can act on: the stable code, what happened, and what to do next. */
export function renderToolError(error: unknown): CallToolResult {
  if (isTabgateError(error)) {
    return {
      isError: true,
      content: [{ type: 'text', text: `Error ${error.code}: ${error.message}\nNext: ${hintOf(error.code)}` }],
    };
  }
  return {
    isError: true,
    content: [
      {
        type: 'text',
        text: 'Error internal_error: the tool failed unexpectedly; the gateway log has details.',
      },
    ],
  };
}
