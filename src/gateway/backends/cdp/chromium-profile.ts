/**
 * The local Chromium's folders under TMPDIR, and their removal. Each browser gets a scratch folder
 * (`tabgate-chromium-XXXXXX`: its profile, a private HOME, and its gateway's host and pid), removed
 * when the browser ends.
 *
 * Two ways one could stay behind:
 * - Chromium keeps the socket that makes one profile one browser outside the profile: a Unix socket's
 *   path is limited to about 100 bytes, so it makes a folder of its own under TMPDIR
 *   (`org.chromium.Chromium.XXXXXX`) and links `SingletonSocket` in the profile to the socket there.
 *   Ended by a signal, it leaves that folder behind (three launches and closes, three more folders,
 *   seen here); the link names it, so it goes with the profile.
 * - A gateway killed with SIGKILL (or by a power cut) removes nothing: its browser quits as the CDP pipe
 *   closes, but the profile stays, cookies and all. The next gateway to launch a browser removes the
 *   scratch folders whose gateway is gone: only folders of this user, each named by its host and pid.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const SCRATCH_PREFIX = 'tabgate-chromium-';
const OWNER_FILE = 'gateway.pid';
const PROFILE = 'profile';

/** Chromium's and Chrome's names for the singleton folder (`org.chromium.Chromium.*`, `com.google.Chrome.*`). */
const SINGLETON_FOLDER = /^(org\.chromium\.|com\.google\.)/;

export interface BrowserFolders {
  /** The scratch folder; everything below is inside it. */
  scratch: string;
  userDataDir: string;
  home: string;
}

/** A new scratch folder, 0700 whatever the umask, marked as this process's. */
export function makeBrowserFolders(): BrowserFolders {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), SCRATCH_PREFIX));
  const userDataDir = path.join(scratch, PROFILE);
  const home = path.join(scratch, 'home');
  fs.mkdirSync(userDataDir, { mode: 0o700 });
  fs.mkdirSync(home, { mode: 0o700 });
  fs.writeFileSync(path.join(scratch, OWNER_FILE), ownerMark(), { mode: 0o600 });
  return { scratch, userDataDir, home };
}

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

/**
 * `<host> <pid>`: a pid means something only on the host (the pid namespace) that wrote it, and a
 * TMPDIR shared between containers must not make one gateway remove another's live browser. Chromium
 * marks its own profile lock the same way.
 */
function ownerMark(): string {
  return `${os.hostname()} ${process.pid}`;
}

/** The pid of a folder's gateway, if it was written on this host. */
function ownerPid(scratch: string): number | null {
  const [host, pid] = fs.readFileSync(path.join(scratch, OWNER_FILE), 'utf8').split(' ');
  const n = Number(pid);
  return host === os.hostname() && Number.isInteger(n) && n > 0 ? n : null;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'; // someone else's process, alive
  }
}

/**
 * Removes the scratch folders that gateways now gone left under TMPDIR; how many. A folder counts only
 * if it is a real folder of this user's whose pid file, written on this host, names a process that no
 * longer runs: another user's folder (TMPDIR is shared) could link anywhere, and a live gateway's
 * browser is in use.
 */
export function removeAbandonedBrowserFolders(tmp: string = os.tmpdir()): number {
  const uid = process.getuid?.();
  if (uid === undefined) return 0;
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(tmp);
  } catch {
    return 0;
  }
  for (const name of names) {
    if (!name.startsWith(SCRATCH_PREFIX)) continue;
    const scratch = path.join(tmp, name);
    try {
      const stat = fs.lstatSync(scratch);
      if (!stat.isDirectory() || stat.uid !== uid) continue;
      const pid = ownerPid(scratch);
      if (pid === null || alive(pid)) continue;
      removeChromiumFolders(scratch, path.join(scratch, PROFILE));
      removed++;
    } catch {
      // No pid file yet (a launch in progress), or gone meanwhile: not ours to judge.
    }
  }
  return removed;
}
