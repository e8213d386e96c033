/**
 * Reads a request body, counting bytes as they stream in: past the limit it stops reading and reports
 * `body_too_large` without ever holding more than the limit in memory.
 */
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { formatIssues, MAX_JSON_BODY_BYTES, TabgateError } from '../../protocol/index.js';

/** The parsed body: absent, a JSON value, or text that is not JSON. */
export type JsonBody = { kind: 'empty' } | { kind: 'json'; value: unknown } | { kind: 'malformed' };

export function readBody(req: IncomingMessage, limit = MAX_JSON_BODY_BYTES): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    return Promise.reject(new TabgateError('body_too_large', `The body is over ${limit} bytes.`));
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (error: Error | null) => {
      if (done) return;
      done = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      if (error) reject(error);
      else resolve(Buffer.concat(chunks, size));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        chunks.length = 0;
        finish(new TabgateError('body_too_large', `The body is over ${limit} bytes.`));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => finish(null);
    const onError = (error: Error) => finish(error);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

export function parseJsonBody(raw: Buffer): JsonBody {
  if (raw.length === 0) return { kind: 'empty' };
  const text = raw.toString('utf8');
  if (text.trim().length === 0) return { kind: 'empty' };
  try {
    return { kind: 'json', value: JSON.parse(text) as unknown };
  } catch {
    return { kind: 'malformed' };
  }
}

/** A JSON object body; an empty body counts as `{}`. Anything else is `invalid_json`. */
export function objectBody(body: JsonBody): Record<string, unknown> {
  if (body.kind === 'empty') return {};
  if (body.kind === 'malformed') throw new TabgateError('invalid_json', 'The body is not valid JSON.');
  const value = body.value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new TabgateError('invalid_json', 'The body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}

/**
 * A JSON object body checked against its route's schema: `invalid_request` naming each field that does
 * not fit and what would, before the route changes anything.
 */
export function parseBody<S extends z.ZodType>(schema: S, body: JsonBody): z.infer<S> {
  const parsed = schema.safeParse(objectBody(body));
  if (!parsed.success) throw new TabgateError('invalid_request', formatIssues(parsed.error.issues));
  return parsed.data;
}

export function isJsonContentType(header: string | undefined): boolean {
  if (!header || header === 'application/json') return true;
  const type = header.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || type.endsWith('+json');
}
