/**
 * Whether a file the gateway re-reads on every request (config.yaml's live flag, the owner's vault)
 * may have changed since it was last looked at, without a `stat` per request. A watch on the file's
 * folder marks it stale when an entry of that name changes: the kernel queues that event when the
 * edit is written, before any request sent after the edit, and the event loop handles it before it
 * reads that request from its socket. Without a working watch every look stats, and even with one a
 * look re-stats after a second, in case the folder sits where change events do not reach (a network
 * filesystem).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../log/logger.js';

/** How long a look trusts the watch before it stats anyway. */
const RECHECK_MS = 1000;

export class FileWatch {
  private watcher: fs.FSWatcher | null;
  private stale = true;
  private lookedAt = 0;

  /** `what` names the file in the log lines about its watch. */
  constructor(
    private readonly file: string,
    private readonly what: string,
    private readonly log: Logger,
  ) {
    this.watcher = this.watch();
  }

  /**
   * Whether the file must be looked at (stat'ed) now; true counts as the look, so a change the watch
   * reports from here on makes the next call true again. A caller whose look failed calls `stale()`.
   */
  mustLook(): boolean {
    const now = performance.now();
    if (!this.stale && this.watcher && now - this.lookedAt < RECHECK_MS) return false;
    this.stale = false;
    this.lookedAt = now;
    return true;
  }

  /** The next `mustLook` is true (the last look failed, or this process changed the file itself). */
  markStale(): void {
    this.stale = true;
  }

  /** Stops watching the folder. */
  close(): void {
    this.watcher?.close();
    this.watcher = null;
  }

  private watch(): fs.FSWatcher | null {
    const name = path.basename(this.file);
    try {
      const watcher = fs.watch(path.dirname(this.file), { persistent: false }, (_event, changed) => {
        if (changed === null || changed === name) this.stale = true;
      });
      watcher.on('error', (error) => {
        this.log.warn(`${this.what}: folder watch failed; the file is looked at on every request`, {
          reason: error.message,
        });
        this.close();
      });
      return watcher;
    } catch (error) {
      this.log.debug(`${this.what}: folder not watchable; the file is looked at on every request`, {
        reason: (error as Error).message,
      });
      return null;
    }
  }
}
