/**
 * The live `browser.extension_control.enabled` flag: turning it off in config.yaml must take effect at
 * once, without a restart. A watch on the config folder (file-watch.ts) says when the file may have
 * changed, so a read costs nothing until then; a stale read stats the file and re-parses it only when
 * it changed.
 */
import fs from 'node:fs';
import type { Logger } from '../../log/logger.js';
import { FileWatch } from './file-watch.js';
import { readConfigFile } from './load.js';

export interface FeatureFlag {
  enabled(): boolean;
}

export class LiveExtensionControlFlag implements FeatureFlag {
  private signature = '';
  private value: boolean;
  private readonly watch: FileWatch;

  constructor(
    private readonly file: string,
    initial: boolean,
    private readonly log: Logger,
  ) {
    this.value = initial;
    this.watch = new FileWatch(file, 'config.yaml (extension control)', log);
    this.signature = this.statSignature();
  }

  enabled(): boolean {
    if (!this.watch.mustLook()) return this.value;
    const signature = this.statSignature();
    if (signature !== this.signature) {
      this.signature = signature;
      this.value = this.readFlag();
    }
    return this.value;
  }

  /** Stops watching the config folder. */
  close(): void {
    this.watch.close();
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
