/**
 * The safety net under tab-downloads.ts: a download of a shared tab that did not come through its
 * network layer never lands in the person's own downloads folder. Chrome completes no download before
 * every `chrome.downloads.onDeterminingFilename` listener answered, so each is judged here first:
 *
 * - the echo of a download the network layer took (Chrome starts an `a[download]` item, then sees its
 *   request fail): cancelled, nothing to report;
 * - one the page made itself (a `blob:` or `data:` URL, whose bytes the extension cannot read on the
 *   user's tab), or one no attached tab saw: cancelled, and reported as `stopped` with the reason (a
 *   call that started one answers `unsupported_on_backend`);
 * - anything else (another site's, while the agent is idle): left alone, the person's own.
 *
 * Chrome does not say which tab started a download, so one counts as the share's when its page (the
 * referrer) or its URL is on the origin of a shared tab, or when it starts while a command of the
 * agent runs (or just after).
 */
import { chrome, type DownloadItem } from '../chrome-api.js';
import { readLocal } from './durable-state.js';
import type { TabDownloads } from './tab-downloads.js';

/** After a command ends, a download that starts within this is still the agent's doing. */
const AFTER_COMMAND_MS = 5_000;

function originOf(url: string): string | null {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

const baseName = (path: string) => path.split(/[\\/]/).pop() ?? path;

/** The reason a download of the share that the network layer did not take is reported with. */
export function untakenReason(url: string): string {
  return /^(blob|data|filesystem):/i.test(url)
    ? 'was made inside the page (a blob: or data: URL), which the extension cannot read on the user’s tab; it was cancelled and nothing was saved'
    : 'did not pass through the shared tab’s network layer; it was cancelled and nothing was saved';
}

export class DownloadHolds {
  /** Commands running now, and when the last one ended. */
  private running = 0;
  private lastEnded = 0;

  constructor(private readonly downloads: TabDownloads) {}

  /** Registers the listener; called at the worker's top level, as Chrome requires. */
  install(): void {
    chrome.downloads.onDeterminingFilename.addListener((item, suggest) => {
      void this.judge(item).then(
        (keep) => {
          if (keep) suggest();
          else void chrome.downloads.cancel(item.id).catch(() => undefined);
        },
        () => void chrome.downloads.cancel(item.id).catch(() => undefined),
      );
      return true;
    });
  }

  /** A command of the agent starts. Returns the end to call. */
  begin(): () => void {
    this.running++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.running--;
      this.lastEnded = Date.now();
    };
  }

  /** Whether Chrome may save it: only a download that is none of the share's. */
  private async judge(item: DownloadItem): Promise<boolean> {
    if (item.byExtensionId === chrome.runtime.id) return true;
    const url = item.finalUrl ?? item.url;
    if (this.downloads.wasTaken(item.url) || this.downloads.wasTaken(url)) return false;
    const share = await readLocal('share');
    if (!share) return true;
    if (!(await this.startedByShare(item, share.tab_ids))) return true;
    const name = baseName(item.filename) || 'download';
    await this.downloads.ready(share.session_id);
    this.downloads.refused(share.session_id, name, untakenReason(url));
    return false;
  }

  private async startedByShare(item: DownloadItem, tabIds: readonly number[]): Promise<boolean> {
    if (this.running > 0 || Date.now() - this.lastEnded < AFTER_COMMAND_MS) return true;
    const origins = new Set<string>();
    for (const id of tabIds) {
      const tab = await chrome.tabs.get(id).catch(() => null);
      const origin = originOf(tab?.url ?? tab?.pendingUrl ?? '');
      if (origin) origins.add(origin);
    }
    return [item.referrer, item.url, item.finalUrl ?? ''].some((url) => {
      const origin = originOf(url.replace(/^blob:/i, ''));
      return origin !== null && origins.has(origin);
    });
  }
}
