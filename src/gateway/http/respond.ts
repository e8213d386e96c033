/**
 * The one place an HTTP response body is written, errors included: every error is
 * `{"error": {"code", "message"}}` from a TabgateError; anything else is a 500 `internal_error` whose
 * details go to the log only. A refusal that knows when to retry (`browser_busy`) sets `Retry-After`.
 */
import type { ServerResponse } from 'node:http';
import { isTabgateError, TabgateError } from '../../protocol/index.js';
import type { Logger } from '../../log/logger.js';

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(text),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(text);
}

export function toTabgateError(error: unknown, log: Logger, where: string): TabgateError {
  if (isTabgateError(error)) return error;
  log.error('unexpected error', {
    where,
    error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    stack: error instanceof Error ? error.stack?.split('\n').slice(1, 4).join(' | ') : undefined,
  });
  return new TabgateError(
    'internal_error',
    'Something went wrong inside tabgate; the gateway log has details.',
  );
}

export function sendError(res: ServerResponse, error: unknown, log: Logger, where: string): void {
  const tabgateError = toTabgateError(error, log, where);
  const retryAfter = tabgateError.retryAfterSeconds;
  sendJson(
    res,
    tabgateError.status,
    tabgateError.toBody(),
    retryAfter === undefined ? {} : { 'retry-after': String(retryAfter) },
  );
}
