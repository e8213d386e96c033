/**
 * What `tabgate mcp` reads on stdin, line by line, before the MCP SDK's stdio transport sees it. The
 * SDK drops a line it cannot read as one of MCP's JSON-RPC messages without a word, so a client whose
 * request carried, say, `"_meta": null` waited for an answer until its own timeout. Here such a line is
 * answered as JSON-RPC 2.0 says (a parse error for a line that is not JSON; invalid params, with the
 * request's own id, for a request whose params do not fit; an invalid request otherwise), and never
 * reaches the SDK; notifications and responses are never answered, so a malformed one is only logged.
 * Every other line goes on unchanged.
 */
import { Transform, type TransformCallback, type Writable } from 'node:stream';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { ErrorCode, JSONRPCMessageSchema, JSONRPCRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../log/logger.js';

type Verdict = { pass: true } | { pass: false; answer: object | null; why: string };

const isRequestId = (id: unknown): id is string | number =>
  typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id));

const errorAnswer = (id: string | number | null, code: number, message: string) => ({
  jsonrpc: '2.0' as const,
  id,
  error: { code, message },
});

/** Whether a line goes on to the SDK, or what it is answered instead (null: nothing, it asked none). */
export function judgeLine(line: string): Verdict {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return {
      pass: false,
      answer: errorAnswer(null, ErrorCode.ParseError, 'Parse error: not JSON'),
      why: 'not JSON',
    };
  }
  const checked = JSONRPCMessageSchema.safeParse(value);
  if (checked.success) return { pass: true };
  if (Array.isArray(value))
    return {
      pass: false,
      answer: errorAnswer(
        null,
        ErrorCode.InvalidRequest,
        'Invalid Request: MCP takes one message per line, not a batch',
      ),
      why: 'a batch',
    };
  const message = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>;
  if (typeof message.method === 'string') {
    // A notification (no id) is never answered, however malformed.
    if (!('id' in message)) return { pass: false, answer: null, why: 'a malformed notification' };
    // Read as the request it says it is: the union's own issue names no field.
    const issue = JSONRPCRequestSchema.safeParse(value).error?.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.map(String).join('.') : '(message)';
    const id = isRequestId(message.id) ? message.id : null;
    const answer =
      id !== null && message.jsonrpc === '2.0'
        ? errorAnswer(
            id,
            ErrorCode.InvalidParams,
            `Invalid params for ${message.method.slice(0, 100)}: ${where}`,
          )
        : errorAnswer(id, ErrorCode.InvalidRequest, `Invalid Request: ${where}`);
    return { pass: false, answer, why: `a malformed request (${where})` };
  }
  // A response (to a request of the server's) is never answered either.
  if ('result' in message || 'error' in message)
    return { pass: false, answer: null, why: 'a malformed response' };
  return {
    pass: false,
    answer: errorAnswer(null, ErrorCode.InvalidRequest, 'Invalid Request: no method'),
    why: 'no method',
  };
}

/**
 * A stream to put between stdin and the SDK's transport: complete lines that pass go through, the
 * others are answered on `stdout`. A line longer than the SDK's own buffer is dropped whole (the SDK
 * would drop it too), and answered as a parse error.
 */
export function answeringMalformedLines(stdout: Writable, log: Logger): Transform {
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  /** Past the size limit: the rest of this line is skipped. */
  let skipping = false;
  const reject = (verdict: Extract<Verdict, { pass: false }>) => {
    log.warn('mcp stdio: a line was not passed on', { reason: verdict.why });
    if (verdict.answer) stdout.write(`${JSON.stringify(verdict.answer)}\n`);
  };
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      let start = 0;
      for (let end = chunk.indexOf(0x0a); end !== -1; end = chunk.indexOf(0x0a, start)) {
        const piece = chunk.subarray(start, end);
        start = end + 1;
        if (skipping) {
          skipping = false;
          continue;
        }
        const line = Buffer.concat([...pending, piece]);
        pending = [];
        pendingBytes = 0;
        const verdict = judgeLine(line.toString('utf8').replace(/\r$/, ''));
        if (verdict.pass) this.push(Buffer.concat([line, Buffer.from('\n')]));
        else reject(verdict);
      }
      const rest = chunk.subarray(start);
      if (!skipping && rest.length > 0) {
        pending.push(rest);
        pendingBytes += rest.length;
        if (pendingBytes > STDIO_DEFAULT_MAX_BUFFER_SIZE) {
          pending = [];
          pendingBytes = 0;
          skipping = true;
          reject({
            pass: false,
            answer: errorAnswer(
              null,
              ErrorCode.ParseError,
              `Parse error: a line longer than ${STDIO_DEFAULT_MAX_BUFFER_SIZE / 2 ** 20} MB`,
            ),
            why: 'too long',
          });
        }
      }
      done();
    },
  });
}
