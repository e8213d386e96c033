/**
 * Downloads on the user's tab, the gateway's half (docs/extension.md "Downloads"). The extension takes
 * the response a download is made of and streams its body here in `download` frames; this writes it
 * into the session's own folder (`$TABGATE_HOME/downloads/<session>/`, the session the controller's
 * lane is bound to, never a name the frame gives), under the same safe name, cap and hash as the local
 * browser's downloads (backends/cdp/downloads.ts), so browser_downloads, the action's result and
 * `GET /v1/sessions/{id}/downloads/{name}` are the same on every backend. Nothing is written elsewhere:
 * a download in progress is a dot file in that folder (never served), renamed once complete and
 * removed when stopped.
 */
import { createHash, type Hash } from 'node:crypto';
import { lstat, mkdir, open, rename, rm, type FileHandle } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { DownloadAckParams, DownloadInfo, DownloadParams } from '../protocol/index.js';
import {
  mimeOf,
  safeFileName,
  sessionFolder,
  stoppedDownload as stopped,
  tooLargeReason,
} from './backends/cdp/downloads.js';

/** Downloads one controller may stream at once. */
const OPEN_PER_CONTROLLER = 8;
/** A download that gets no chunk for this long was given up by its controller: its part is removed. */
const IDLE_MS = 60_000;

interface Open {
  owner: object;
  dir: string;
  partial: string;
  name: string;
  handle: FileHandle;
  hash: Hash;
  bytes: number;
  nextSeq: number;
  idle: NodeJS.Timeout;
}

export class UserTabDownloads {
  private readonly open = new Map<string, Open>();
  /** Each download's frames are handled one after the other, in the order they came. */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(
    /** `$TABGATE_HOME/downloads`. */
    private readonly root: string,
    /** `browser.download_max_mb`, in bytes. */
    private readonly maxBytes: number,
  ) {}

  /** One `download` frame of `owner` (a controller connection) for the session its lane is bound to. */
  receive(sessionId: string, owner: object, params: DownloadParams): Promise<DownloadAckParams> {
    const key = params.download_id;
    const previous = this.chains.get(key) ?? Promise.resolve();
    const next = previous.then(() => this.handle(sessionId, owner, params));
    const tail = next.catch(() => undefined);
    this.chains.set(key, tail);
    void tail.then(() => {
      if (this.chains.get(key) === tail) this.chains.delete(key);
    });
    return next;
  }

  /** The controller's socket closed: what it was streaming is removed. */
  async abandonAll(owner: object): Promise<void> {
    await Promise.all(
      [...this.open].filter(([, entry]) => entry.owner === owner).map(([id]) => this.discard(id)),
    );
  }

  private async handle(sessionId: string, owner: object, params: DownloadParams): Promise<DownloadAckParams> {
    const id = params.download_id;
    const answer = (ok: boolean, info?: DownloadInfo): DownloadAckParams => ({
      download_id: id,
      seq: params.seq,
      ok,
      ...(info ? { info } : {}),
    });
    let entry = this.open.get(id);
    if (entry && entry.owner !== owner) return answer(false, stopped('download', 'not this controller’s'));
    if (!entry) {
      const name = safeFileName(params.name ?? 'download');
      if (params.seq !== 0) return answer(false, stopped(name, 'lost (its first part never arrived)'));
      if (params.abandon) return answer(false, stopped(name, params.abandon));
      if ((params.expected_size ?? 0) > this.maxBytes)
        return answer(false, stopped(name, tooLargeReason(this.maxBytes)));
      if ([...this.open.values()].filter((e) => e.owner === owner).length >= OPEN_PER_CONTROLLER)
        return answer(false, stopped(name, `more than ${OPEN_PER_CONTROLLER} downloads at once`));
      entry = await this.begin(id, sessionId, owner, name);
    }
    if (params.abandon) {
      await this.discard(id);
      return answer(false, stopped(entry.name, params.abandon));
    }
    if (params.seq !== entry.nextSeq) {
      await this.discard(id);
      return answer(false, stopped(entry.name, 'lost (a part arrived out of order)'));
    }
    const chunk = Buffer.from(params.data_base64, 'base64');
    entry.bytes += chunk.length;
    if (entry.bytes > this.maxBytes) {
      await this.discard(id);
      return answer(false, stopped(entry.name, tooLargeReason(this.maxBytes)));
    }
    await entry.handle.write(chunk);
    entry.hash.update(chunk);
    entry.nextSeq++;
    entry.idle.refresh();
    if (!params.end) return answer(true);
    return answer(true, await this.finish(id, entry));
  }

  private async begin(id: string, sessionId: string, owner: object, name: string): Promise<Open> {
    const dir = sessionFolder(this.root, sessionId);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    // A dot name: safeFileName never gives one, so the route never serves a part.
    const partial = join(dir, `.${id}.part`);
    const handle = await open(partial, 'wx', 0o600);
    const idle = setTimeout(() => void this.discard(id), IDLE_MS);
    idle.unref();
    const entry: Open = {
      owner,
      dir,
      partial,
      name,
      handle,
      hash: createHash('sha256'),
      bytes: 0,
      nextSeq: 0,
      idle,
    };
    this.open.set(id, entry);
    return entry;
  }

  private async finish(id: string, entry: Open): Promise<DownloadInfo> {
    this.open.delete(id);
    clearTimeout(entry.idle);
    await entry.handle.close();
    const name = await this.freeName(entry.dir, entry.name);
    const path = join(entry.dir, name);
    try {
      await rename(entry.partial, path);
    } catch {
      await rm(entry.partial, { force: true }).catch(() => undefined);
      return stopped(name, 'lost');
    }
    return {
      name,
      size: entry.bytes,
      mime: mimeOf(name),
      sha256: entry.hash.digest('hex'),
      path,
      state: 'complete',
    };
  }

  private async discard(id: string): Promise<void> {
    const entry = this.open.get(id);
    if (!entry) return;
    this.open.delete(id);
    clearTimeout(entry.idle);
    await entry.handle.close().catch(() => undefined);
    await rm(entry.partial, { force: true }).catch(() => undefined);
  }

  /** `name`, or `name (2)`, `name (3)`…: a download never replaces one the session already has. */
  private async freeName(dir: string, name: string): Promise<string> {
    const taken = async (candidate: string) => (await lstat(join(dir, candidate)).catch(() => null)) !== null;
    if (!(await taken(name))) return name;
    const ext = extname(name);
    const base = name.slice(0, name.length - ext.length);
    for (let n = 2; ; n++) {
      const candidate = `${base} (${n})${ext}`;
      if (!(await taken(candidate))) return candidate;
    }
  }
}
