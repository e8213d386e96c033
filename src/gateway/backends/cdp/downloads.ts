/**
 * A session's downloads on a browser tabgate runs on this machine: Chromium saves each one under its
 * guid in the session's own folder (`$TABGATE_HOME/downloads/<session>/`, nothing is written anywhere
 * else), a download past `browser.download_max_mb` is cancelled as soon as it is seen to be, and a
 * finished one is renamed to a safe form of the name the site suggested and hashed. The engine reports
 * them in the result of the call that started them and in browser_downloads.
 */
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { DownloadInfo } from '../../../protocol/index.js';
import { whenSettled, type CdpSession, type DownloadLedger } from '../../../engine/index.js';

interface Pending {
  guid: string;
  suggested: string;
  stopped: string | null;
  /** Browser.cancelDownload went out (once is enough). */
  cancelSent: boolean;
}

const MIME: Record<string, string> = {
  '.csv': 'text/csv',
  '.txt': 'text/plain',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
  '.zip': 'application/zip',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.html': 'text/html',
  '.xml': 'application/xml',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
};

export function mimeOf(name: string): string {
  return MIME[extname(name).toLowerCase()] ?? 'application/octet-stream';
}

/** One path segment: no separators, no dot files, nothing a shell or a path could misread. */
export function safeFileName(suggested: string): string {
  const cleaned = suggested
    .replace(/[^\w.\- ]+/g, '_')
    .replace(/^[.\s]+/, '')
    .trim()
    .slice(0, 120);
  return cleaned.length > 0 ? cleaned : 'download';
}

/** Why a download was stopped at the cap: the same words on every backend. */
export function tooLargeReason(maxBytes: number): string {
  return `bigger than browser.download_max_mb (${Math.round(maxBytes / 1024 / 1024)} MB)`;
}

/** A download that did not complete: nothing saved, and why, in the same shape on every backend. */
export function stoppedDownload(name: string, reason: string): DownloadInfo {
  return { name, size: 0, mime: mimeOf(name), sha256: '', path: '', state: 'stopped', reason };
}

/** A session id as a folder name. */
export function sessionFolder(root: string, sessionId: string): string {
  return join(root, safeFileName(sessionId));
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export class SessionDownloads implements DownloadLedger {
  private readonly pending = new Map<string, Pending>();
  private readonly done: DownloadInfo[] = [];
  private fresh: DownloadInfo[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly unsubscribe: (() => void)[] = [];

  constructor(
    private readonly root: CdpSession,
    private readonly contextId: string,
    private readonly dir: string,
    private readonly maxBytes: number,
    /** Whether a frame (a tab's main frame id is its target id) belongs to this session. */
    private readonly owns: (frameId: string) => boolean,
  ) {}

  async enable(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    this.unsubscribe.push(
      this.root.on<{ guid: string; frameId: string; suggestedFilename: string }>(
        'Browser.downloadWillBegin',
        ({ guid, frameId, suggestedFilename }) => {
          if (this.owns(frameId))
            this.pending.set(guid, { guid, suggested: suggestedFilename, stopped: null, cancelSent: false });
        },
      ),
      this.root.on<{ guid: string; totalBytes: number; receivedBytes: number; state: string }>(
        'Browser.downloadProgress',
        (event) => void this.progress(event),
      ),
    );
    await this.root.send('Browser.setDownloadBehavior', {
      behavior: 'allowAndName',
      browserContextId: this.contextId,
      downloadPath: this.dir,
      eventsEnabled: true,
    });
  }

  private async progress(event: { guid: string; totalBytes: number; receivedBytes: number; state: string }) {
    const entry = this.pending.get(event.guid);
    if (!entry) return;
    // The cap holds whatever the event's state: a small file can finish before its cancel lands.
    if (!entry.stopped && Math.max(event.totalBytes, event.receivedBytes) > this.maxBytes)
      entry.stopped = tooLargeReason(this.maxBytes);
    if (event.state === 'inProgress') {
      if (entry.stopped && !entry.cancelSent) {
        entry.cancelSent = true;
        await this.root
          .send('Browser.cancelDownload', { guid: entry.guid, browserContextId: this.contextId })
          .catch(() => undefined);
      }
      return;
    }
    this.pending.delete(event.guid);
    const partial = join(this.dir, entry.guid);
    if (event.state !== 'completed' || entry.stopped) {
      await rm(partial, { force: true }).catch(() => undefined);
      this.record(stoppedDownload(safeFileName(entry.suggested), entry.stopped ?? 'cancelled'));
      return;
    }
    const name = this.uniqueName(safeFileName(entry.suggested));
    const path = join(this.dir, name);
    try {
      await rename(partial, path);
      const { size } = await stat(path);
      this.record({ name, size, mime: mimeOf(name), sha256: await sha256Of(path), path, state: 'complete' });
    } catch {
      this.record(stoppedDownload(name, 'lost'));
    }
  }

  private uniqueName(name: string): string {
    const taken = new Set(this.done.map((d) => d.name));
    if (!taken.has(name)) return name;
    const ext = extname(name);
    const base = name.slice(0, name.length - ext.length);
    for (let n = 2; ; n++) if (!taken.has(`${base} (${n})${ext}`)) return `${base} (${n})${ext}`;
  }

  private record(info: DownloadInfo): void {
    this.done.push(info);
    this.fresh.push(info);
    for (const waiter of [...this.waiters]) waiter();
  }

  list(): DownloadInfo[] {
    return [...this.done];
  }

  drain(): DownloadInfo[] {
    const fresh = this.fresh;
    this.fresh = [];
    this.lastDrain = Date.now();
    return fresh;
  }

  private lastDrain = 0;

  /**
   * Resolves once no download of this session is under way, or after `timeoutMs`. `graceMs`: a click
   * on a download link returns before the response that makes it a download arrives, so a download
   * the last call started may not have begun yet; until that long after the last call, wait for one.
   */
  settle(timeoutMs: number, graceMs = 0): Promise<void> {
    const graceUntil = this.lastDrain + graceMs;
    const known = this.done.length + this.pending.size;
    const settled = () => this.pending.size === 0 && (this.done.length > known || Date.now() >= graceUntil);
    const deadline = Date.now() + timeoutMs;
    return whenSettled(this.waiters, settled, () => deadline);
  }

  dispose(): void {
    for (const off of this.unsubscribe) off();
    this.waiters.clear();
  }
}
