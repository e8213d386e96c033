/**
 * Removing a Chromium profile folder completely. Chromium keeps the socket that makes one profile one
 * browser outside the profile: a Unix socket's path is limited to about 100 bytes, so it makes a
 * folder of its own under TMPDIR (`org.chromium.Chromium.XXXXXX`) and links `SingletonSocket` in the
 * profile to the socket there. Ended by a signal, it leaves that folder behind, one in /tmp per launch
 * (three launches and closes, three more folders, seen here); the link names it, so it goes with the
 * profile.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Chromium's and Chrome's names for that folder (`org.chromium.Chromium.*`, `com.google.Chrome.*`). */
const SINGLETON_FOLDER = /^(org\.chromium\.|com\.google\.)/;

/** The folder the profile's `SingletonSocket` link points into, if it is Chromium's own. */
export function singletonFolderOf(userDataDir: string): string | null {
  let target: string;
  try {
    target = fs.readlinkSync(path.join(userDataDir, 'SingletonSocket'));
  } catch {
    return null; // never started, or no link on this platform
  }
  const folder = path.dirname(path.resolve(userDataDir, target));
  return path.basename(target) === 'SingletonSocket' && SINGLETON_FOLDER.test(path.basename(folder))
    ? folder
    : null;
}

/** Removes `folder` (which holds the profile `userDataDir`) and Chromium's singleton folder. */
export function removeChromiumFolders(folder: string, userDataDir: string): void {
  const singleton = singletonFolderOf(userDataDir);
  if (singleton) fs.rmSync(singleton, { recursive: true, force: true });
  fs.rmSync(folder, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
}
