/**
 * Which files browser_upload may hand to the browser: only regular files under a folder listed in
 * `browser.upload_roots`, judged after symlinks and `..` are resolved (so a link inside a root that
 * points out of it is refused), and no bigger than `browser.upload_max_mb`. Nothing is read here;
 * the browser reads the file once the path passed.
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, sep } from 'node:path';
import { TabgateError } from '../../../protocol/index.js';

export async function checkUploadPaths(
  paths: readonly string[],
  roots: readonly string[],
  maxBytes: number,
): Promise<string[]> {
  if (roots.length === 0) {
    throw new TabgateError(
      'upload_not_allowed',
      'Uploads are off: browser.upload_roots lists no folder. The owner adds the folders files may be uploaded from to browser.upload_roots in config.yaml.',
    );
  }
  const realRoots = (await Promise.all(roots.map((root) => realpath(root).catch(() => null)))).filter(
    (root): root is string => root !== null,
  );
  const resolved: string[] = [];
  for (const [index, path] of paths.entries()) {
    const field = `paths.${index}`;
    if (!isAbsolute(path))
      throw new TabgateError('invalid_arguments', `${field}: expected an absolute path.`);
    const real = await realpath(path).catch(() => null);
    if (!real) throw new TabgateError('invalid_arguments', `${field}: no such file.`);
    if (!realRoots.some((root) => real === root || real.startsWith(root.endsWith(sep) ? root : root + sep))) {
      throw new TabgateError(
        'upload_not_allowed',
        `${field}: that file is not under a folder of browser.upload_roots (links and .. are resolved first).`,
      );
    }
    const info = await stat(real);
    if (!info.isFile()) {
      throw new TabgateError(
        'invalid_arguments',
        `${field}: not a regular file (${info.isDirectory() ? 'a directory' : 'a device or special file'}).`,
      );
    }
    if (info.size > maxBytes) {
      throw new TabgateError(
        'upload_not_allowed',
        `${field}: the file is ${Math.ceil(info.size / 1024 / 1024)} MB, over browser.upload_max_mb (${Math.round(maxBytes / 1024 / 1024)} MB).`,
      );
    }
    resolved.push(real);
  }
  return resolved;
}
