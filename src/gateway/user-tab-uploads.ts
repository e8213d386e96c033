/**
 * The files of a browser_upload to the user's tab. The person's browser cannot read this machine's disk,
 * so the gateway reads them here, after the engine's own checks (checkUploadPaths: only regular files
 * under `browser.upload_roots`, links and `..` resolved first, each within `browser.upload_max_mb`),
 * and the command carries their bytes. A protocol frame has a size limit, so the files of one upload
 * together stay within USER_TAB_UPLOAD_MAX_BYTES as well.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { TabgateError, USER_TAB_UPLOAD_MAX_BYTES, type UploadFile } from '../protocol/index.js';
import { mimeOf } from './backends/cdp/downloads.js';
import { checkUploadPaths } from './backends/cdp/upload-paths.js';

export interface UploadSettings {
  /** `browser.upload_roots`. */
  roots: readonly string[];
  /** `browser.upload_max_mb`, in bytes. */
  maxBytes: number;
}

/** Reads the files an agent named, or refuses them all with nothing sent. */
export async function readUploadFiles(
  paths: readonly string[],
  settings: UploadSettings,
): Promise<UploadFile[]> {
  const resolved = await checkUploadPaths(paths, settings.roots, settings.maxBytes);
  const files: UploadFile[] = [];
  let total = 0;
  for (const [index, path] of resolved.entries()) {
    const bytes = await readFile(path);
    total += bytes.length;
    if (total > USER_TAB_UPLOAD_MAX_BYTES) {
      throw new TabgateError(
        'upload_not_allowed',
        `paths.${index}: the files of one upload to the user's tab travel in one protocol frame and may be ${Math.floor(USER_TAB_UPLOAD_MAX_BYTES / 1024 / 1024)} MB together; these are more. Upload fewer or smaller files.`,
      );
    }
    // The name the agent gave, not the link's target: what a person picking that file would send.
    const name = basename(paths[index] ?? path);
    files.push({ name, mime: mimeOf(name), size: bytes.length, data_base64: bytes.toString('base64') });
  }
  return files;
}
