/**
 * Files and folders only their owner may open. Modes are set explicitly rather than left to the umask:
 * a `mode` given to open or mkdir only ever loses bits to the umask, and a tightened existing file keeps
 * the owner's own bits, so nothing here ever grants access that was not there.
 */
import fs from 'node:fs';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** The group and other bits of a mode. */
export const othersBits = (mode: number): number => mode & 0o077;

/** Creates `file` 0600 when it is missing; an existing file is left as it is. */
export function createPrivateFile(file: string): void {
  let fd: number;
  try {
    fd = fs.openSync(
      file,
      fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY,
      PRIVATE_FILE_MODE,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw error;
  }
  try {
    fs.fchmodSync(fd, PRIVATE_FILE_MODE);
  } finally {
    fs.closeSync(fd);
  }
}

/** Creates `dir` (and missing parents) 0700. Returns whether it was created. */
export function createPrivateDir(dir: string): boolean {
  const created = fs.mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  if (created === undefined) return false;
  fs.chmodSync(dir, PRIVATE_DIR_MODE);
  return true;
}

/**
 * Takes the group and other bits off an existing file or folder. Returns its mode before, when it
 * changed; null when it was private already or does not exist.
 */
export function removeOthersAccess(file: string): number | null {
  let mode: number;
  try {
    mode = fs.statSync(file).mode & 0o777;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  if (othersBits(mode) === 0) return null;
  fs.chmodSync(file, mode & 0o700);
  return mode;
}
