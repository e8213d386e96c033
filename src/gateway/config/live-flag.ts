/**
 * The live `browser.extension_control.enabled` flag: turning it off in config.yaml must take effect at
 * once, without a restart. Every read stats the file and re-parses it only when it changed, so the hot
 * path costs one stat.
 */
import fs from 'node:fs';
import type { Logger } from '../../log/logger.js';
import { readConfigFile } from './load.js';

export interface FeatureFlag {
  enabled(): boolean;
}

/** A fixed flag, for embedders that pin the value. */
export const fixedFlag = (value: boolean): FeatureFlag => ({ enabled: () => value });

export class LiveExtensionControlFlag implements FeatureFlag {
  private signature = '';
  private value: boolean;

  constructor(
    private readonly file: string,
    initial: boolean,
    private readonly log: Logger,
  ) {
    this.value = initial;
    this.signature = this.statSignature();
  }

  enabled(): boolean {
    const signature = this.statSignature();
    if (signature !== this.signature) {
      this.signature = signature;
      this.value = this.readFlag();
    }
    return this.value;
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
