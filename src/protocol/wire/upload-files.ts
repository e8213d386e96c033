/**
 * The files of a `browser_upload` on the user's tab. The user's browser cannot read the gateway's disk,
 * so the gateway reads the files (from `browser.upload_roots`, with the engine's checks) and sends
 * them in the command's arguments under `files`; the extension sets exactly these on the file input.
 * A controller of the reference protocol never receives this: browser_upload is an extended capability.
 */
import { z } from 'zod';
import { MAX_FRAME_BYTES } from './constants.js';

/**
 * All files of one upload to the user's tab together, before base64: base64 grows them by a third, and
 * the command must stay a frame of at most MAX_FRAME_BYTES (8 MiB) with room for the rest.
 */
export const USER_TAB_UPLOAD_MAX_BYTES = Math.floor(((MAX_FRAME_BYTES - 256 * 1024) * 3) / 4);

export const uploadFileSchema = z.strictObject({
  /** The file's base name: what the page sees as `File.name`; never the gateway's path. */
  name: z.string().min(1).max(255),
  /** The MIME type the page sees as `File.type` (by extension; empty when unknown). */
  mime: z.string().max(255),
  size: z.number().int().min(0),
  /** The file's bytes, base64. */
  data_base64: z.string(),
});
export type UploadFile = z.infer<typeof uploadFileSchema>;

/** The argument the gateway adds to a browser_upload it sends to the user's tab. */
export const UPLOAD_FILES_ARGUMENT = 'files';
export const uploadFilesSchema = z.array(uploadFileSchema).min(1).max(20);
