/**
 * The Origin rule: browsers attach an Origin to every cross-origin request a web page makes, so any
 * Origin that is not an allowed extension is a web page and is refused. Non-browser clients send no
 * Origin and pass. tabgate's own extension (its id is pinned by the manifest key) is allowed by default.
 */
import { EXTENSION_ID } from '../../protocol/index.js';

export const TABGATE_EXTENSION_ID = EXTENSION_ID;
export const TABGATE_EXTENSION_ORIGIN = `chrome-extension://${TABGATE_EXTENSION_ID}`;

export class OriginGuard {
  private readonly allowed: ReadonlySet<string>;

  constructor(allowedOrigins: readonly string[]) {
    this.allowed = new Set([TABGATE_EXTENSION_ORIGIN, ...allowedOrigins.map((o) => o.toLowerCase())]);
  }

  allows(origin: string | undefined): boolean {
    return origin === undefined || this.allowed.has(origin.toLowerCase());
  }
}
