/**
 * The one way a test makes a scratch folder: under the system's temp folder, private (0700), named for
 * what it holds, and removed when the test file's process exits if the test has not removed it by
 * then. A test that fails half way, a gateway that fails to start, a fixture that forgets: none leaves
 * a folder in /tmp (a day of runs had left dozens of homes and 515 Chromium folders there). A test
 * that needs a folder gone sooner removes it itself, as before.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made = new Set<string>();

function removeAll(): void {
  for (const dir of made) {
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      // A folder still busy at exit is not worth failing the run over.
    }
  }
}

/** A new empty folder `$TMPDIR/tabgate-<name>-XXXXXX`, removed at exit at the latest. */
export function tempDir(name: string): string {
  if (made.size === 0) process.once('exit', removeAll);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `tabgate-${name}-`));
  made.add(dir);
  return dir;
}
