/**
 * The live `browser.extension_control.enabled` flag: turning it off in config.yaml must take effect at
 * once, without a restart. A watch on the config folder marks the flag stale when the file changes
 * (the kernel queues that event when the edit is written, before any request sent after the edit), so
 * a read costs nothing until then; a stale read stats the file and re-parses it only when it changed.
 * Without a working watch every read stats, and even with one a read re-stats after a second, in case
 * the folder sits where change events do not reach (a network filesystem).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../log/logger.js';
import { readConfigFile } from './load.js';

export interface FeatureFlag {
  enabled(): boolean;
}

/** How long a read trusts the watch before it stats anyway. */
const RECHECK_MS = 1000;

export class LiveExtensionControlFlag implements FeatureFlag {
  private signature = '';
  private value: boolean;
  private watcher: fs.FSWatcher | null = null;
  private stale = true;
  private checkedAt = 0;

  constructor(
    private readonly file: string,
    initial: boolean,
    private readonly log: Logger,
  ) {
    this.value = initial;
    this.watcher = this.watch();
    this.signature = this.statSignature();
  }

  enabled(): boolean {
    const now = performance.now();
    if (!this.stale && this.watcher && now - this.checkedAt < RECHECK_MS) return this.value;
    this.stale = false;
    this.checkedAt = now;
    const signature = this.statSignature();
    if (signature !== this.signature) {
      this.signature = signature;
      this.value = this.readFlag();
    }
    return this.value;
  }

  /** Stops watching the config folder. */
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
        this.log.warn('config folder watch failed; the flag is re-read on every request', {
          reason: error.message,
        });
        this.close();
      });
      return watcher;
    } catch (error) {
      this.log.debug('config folder not watchable; the flag is re-read on every request', {
        reason: (error as Error).message,
      });
      return null;
    }
  }

  private statSignature(): string {
    const stat = fs.statSync(this.file, { throwIfNoEntry: false });
    return stat ? `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}` : 'missing';
  }

  private readFlag(): boolean {
    try {
      const tree = readConfigFile(this.file);
      const browser = tree.browser as Record<string, unknown> | undefined;
      const control = browser?.extension_control as Record<string, unknown> | undefined;
      return control?.enabled === true;
    } catch (error) {
      // A half-written or broken file must not hand the user's browser to anyone: off until fixed.
      this.log.warn('config.yaml unreadable; browser extension control is off until it is fixed', {
        reason: (error as Error).message,
      });
      return false;
    }
  }
}
