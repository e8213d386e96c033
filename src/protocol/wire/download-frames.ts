/**
 * The bytes of a download on the user's tab, on their way to the gateway's folder for the session
 * (docs/protocol.md "Downloads from the user's tab"). The person's browser writes nothing: the extension
 * takes the response the download would have been made of, sends its body in `download` frames of at
 * most DOWNLOAD_CHUNK_BYTES each (a frame is at most MAX_FRAME_BYTES), and the gateway answers each
 * one with a `download_ack`, which paces the stream and stops it past `browser.download_max_mb`.
 * Both frames belong to the `browser_downloads` capability: a controller that did not ask for it never
 * sends one, and the gateway ignores them from such a controller.
 */
import { z } from 'zod';
import { downloadInfoSchema } from '../tools/results.js';

/** The bytes of one `download` frame, before base64. */
export const DOWNLOAD_CHUNK_BYTES = 1024 * 1024;
const CHUNK_BASE64_CHARS = Math.ceil(DOWNLOAD_CHUNK_BYTES / 3) * 4;

export const DOWNLOAD_ID_PATTERN = /^[0-9a-f]{32}$/;

export const downloadParamsSchema = z.strictObject({
  /** Chosen by the extension for one download; chunks of one download share it. */
  download_id: z.string().regex(DOWNLOAD_ID_PATTERN),
  /** 0, 1, 2, …: the gateway takes a chunk only in this order. */
  seq: z.number().int().min(0),
  /** The first chunk names the file (as the site suggested it) and its size when the server said it. */
  name: z.string().max(500).optional(),
  expected_size: z.number().int().min(0).optional(),
  data_base64: z.string().max(CHUNK_BASE64_CHARS),
  /** The last chunk: the file is complete. */
  end: z.boolean().optional(),
  /** The extension gave up on it (the page went away, the tab was closed): nothing is kept. */
  abandon: z.string().max(500).optional(),
});
export type DownloadParams = z.infer<typeof downloadParamsSchema>;

export const downloadAckParamsSchema = z.strictObject({
  download_id: z.string().regex(DOWNLOAD_ID_PATTERN),
  seq: z.number().int().min(0),
  /** Send on (`true`), or stop: the gateway kept nothing of it and `info` says why. */
  ok: z.boolean(),
  /** After the last chunk, or a stop: the download as browser_downloads reports it. */
  info: downloadInfoSchema.optional(),
});
export type DownloadAckParams = z.infer<typeof downloadAckParamsSchema>;
