/**
 * Protocol v1 frames: every frame is a JSON text `{"method": <name>, "params": {...}}`.
 * Both the gateway and the extension parse and build frames through this module only.
 */
import { z } from 'zod';
import { secretFillSchema } from '../secret-fill.js';
import { HEARTBEAT_NONCE_MAX_CHARS } from './constants.js';
import {
  downloadAckParamsSchema,
  downloadParamsSchema,
  type DownloadAckParams,
  type DownloadParams,
} from './download-frames.js';

export const FRAME_METHODS = {
  command: 'browser.controller.command',
  cancel: 'browser.controller.cancel',
  result: 'browser.controller.result',
  heartbeat: 'browser.controller.heartbeat',
  detach: 'browser.controller.detach',
  /** tabgate (download-frames.ts): controller → gateway, a chunk of a download on the user's tab. */
  download: 'browser.controller.download',
  /** tabgate: gateway → controller, the answer to each `download` frame. */
  downloadAck: 'browser.controller.download_ack',
} as const;

export type FrameMethod = (typeof FRAME_METHODS)[keyof typeof FRAME_METHODS];

export const COMMAND_ID_PATTERN = /^[0-9a-f]{32}$/;

const jsonObject = z.record(z.string(), z.unknown());

export const commandParamsSchema = z.object({
  command_id: z.string().regex(COMMAND_ID_PATTERN),
  action: z.string().min(1),
  arguments: jsonObject,
  controller_id: z.string(),
  browser_profile_id: z.string(),
  tool_call_id: z.string().nullable(),
  /** tabgate: the command's deadline, epoch milliseconds. */
  deadline_at: z.number().optional(),
  /**
   * tabgate: the vault secret of a `browser_type {secret}`, sent only to a controller the owner paired
   * and only in this one frame; never in `arguments`, which are audited (docs/secrets.md).
   */
  secret: secretFillSchema.optional(),
});
export type CommandParams = z.infer<typeof commandParamsSchema>;

export const cancelParamsSchema = z.object({
  command_id: z.string().min(1),
  tool_call_id: z.string().nullable(),
});
export type CancelParams = z.infer<typeof cancelParamsSchema>;

/**
 * A result: success only when `ok` is the JSON literal `true`; `"true"`, `1` or a missing `ok` are a
 * rejection. `ok` is therefore kept as `unknown` here and judged by {@link isSuccessfulResult}.
 */
export const resultParamsSchema = z.object({
  command_id: z.string().min(1),
  ok: z.unknown().optional(),
  result: z.unknown().optional(),
  error: z.unknown().optional(),
});
export type ResultParams = z.infer<typeof resultParamsSchema>;

export const heartbeatParamsSchema = z.object({
  nonce: z.string().min(1).max(HEARTBEAT_NONCE_MAX_CHARS),
  ok: z.literal(true).optional(),
});
export type HeartbeatParams = z.infer<typeof heartbeatParamsSchema>;

export const detachParamsSchema = z.object({ ok: z.literal(true).optional() }).loose();
export type DetachParams = z.infer<typeof detachParamsSchema>;

export type Frame =
  | { method: typeof FRAME_METHODS.command; params: CommandParams }
  | { method: typeof FRAME_METHODS.cancel; params: CancelParams }
  | { method: typeof FRAME_METHODS.result; params: ResultParams }
  | { method: typeof FRAME_METHODS.heartbeat; params: HeartbeatParams }
  | { method: typeof FRAME_METHODS.detach; params: DetachParams }
  | { method: typeof FRAME_METHODS.download; params: DownloadParams }
  | { method: typeof FRAME_METHODS.downloadAck; params: DownloadAckParams };

const paramsSchemas = {
  [FRAME_METHODS.command]: commandParamsSchema,
  [FRAME_METHODS.cancel]: cancelParamsSchema,
  [FRAME_METHODS.result]: resultParamsSchema,
  [FRAME_METHODS.heartbeat]: heartbeatParamsSchema,
  [FRAME_METHODS.detach]: detachParamsSchema,
  [FRAME_METHODS.download]: downloadParamsSchema,
  [FRAME_METHODS.downloadAck]: downloadAckParamsSchema,
} as const;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const RESULT_FIELDS = ['ok', 'result', 'error'] as const;

/**
 * A result's params as resultParamsSchema reads them (the same check, the same object: the protocol
 * tests hold the two equal), without zod. A result is the frame every call waits for, read right
 * after the gateway wakes up, when the code it runs is cold in the CPU's caches: there, one call at a
 * time (bench:pass-trace), parsing a result took a median 12.8–14.7 µs with zod's object walk and
 * 7.9–10.8 µs without (JSON.parse is most of what is left); warm, both take under 1 µs.
 */
function resultParams(params: Record<string, unknown>): ResultParams | null {
  const commandId = params.command_id;
  if (typeof commandId !== 'string' || commandId.length === 0) return null;
  const read: ResultParams = { command_id: commandId };
  for (const field of RESULT_FIELDS) if (Object.hasOwn(params, field)) read[field] = params[field];
  return read;
}

/**
 * Parses one text frame. Returns null for anything the protocol says to ignore: not JSON, not an
 * object, `params` not an object, an unknown method, or params that do not fit the method.
 */
export function parseFrame(text: string): Frame | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isPlainObject(value) || typeof value.method !== 'string' || !isPlainObject(value.params)) return null;
  const method = value.method;
  if (method === FRAME_METHODS.result) {
    const params = resultParams(value.params);
    return params ? { method, params } : null;
  }
  if (!Object.hasOwn(paramsSchemas, method)) return null;
  const schema = paramsSchemas[method as FrameMethod];
  const parsed = schema.safeParse(value.params);
  if (!parsed.success) return null;
  return { method, params: parsed.data } as Frame;
}

/**
 * The one way a frame becomes text on either side. Fields go out in the order they were written, which
 * for a command is the protocol's (command_id, action, arguments, controller_id, browser_profile_id,
 * tool_call_id, then deadline_at and secret when present).
 */
export function encodeFrame(frame: Frame): string {
  return JSON.stringify(frame);
}

/** Success only when `ok` is the JSON literal `true`. */
export function isSuccessfulResult(params: ResultParams): boolean {
  return params.ok === true;
}
