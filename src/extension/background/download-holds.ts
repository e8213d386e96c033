/**
 * Downloads on the user's tab (docs/extension.md "Downloads"). A download a shared tab starts is held
 * before Chrome names its file: chrome.downloads.onDeterminingFilename lets an extension answer later,
 * and Chrome completes no download before every listener answered. The person approves it in the popup
 * (the `download` class); approved, it lands in their own downloads folder as any download does; denied
 * or not decided in time, it is cancelled and Chrome deletes what it had received, so nothing is saved.
 *
 * Which downloads are the shared tab's: chrome.downloads does not say which tab started one, so a
 * download counts as the share's when its page (the referrer) or its URL is on the origin of a shared
 * tab, or when it starts while a command of the agent runs (or just after). A download of another tab
 * of the same site is held too: asked for, never silent.
 *
 * browser_downloads lists the session's downloads by name, size, mime and state. tabgate does not read
 * the person's disk, so there is no path and no sha256 (both absent in the result).
 */
import { TabgateError, type DownloadInfo } from '../../protocol/index.js';
import { chrome, type DownloadItem } from '../chrome-api.js';
import { readLocal } from './durable-state.js';
import type { TabApprovals } from './tab-approvals.js';

/** How long the approval of a click on a download link lets the download it starts through. */
const APPROVED_CLICK_PASS_MS = 15_000;
/** After a command ends, a download that starts within this is still the agent's doing. */
const AFTER_COMMAND_MS = 5_000;
/** The downloads each session keeps a record of, newest last. */
const KEPT_PER_SESSION = 100;
/** Session storage: survives the worker's restarts, not the browser's, and is not the page's. */
const STORE_KEY = 'tabgate_downloads';

type Outcome = 'allowed' | 'denied' | 'timeout' | 'unavailable';

interface KeptDownload {
  id: number;
  session_id: string;
  name: string;
  /** Set while the person decides, and when they refused it. */
  held?: boolean;
  refused?: string;
}

interface Pending {
  /** The session it is held for, once judged; null when it is not the share's. */
  decided: Promise<{ sessionId: string | null; outcome: Outcome; reason?: string }>;
  resolve(value: { sessionId: string | null; outcome: Outcome; reason?: string }): void;
  /** Its place in the order downloads began: what a command started is what began after it did. */
  seq: number;
}

function originOf(url: string): string | null {
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

const baseName = (path: string) => path.split(/[\\/]/).pop() ?? path;

/** The last segment of a URL's path, for a download Chrome has not named yet. */
function urlName(url: string): string {
  try {
    return decodeURIComponent(baseName(new URL(url).pathname));
  } catch {
    return '';
  }
}

/** How long a command's result waits for a download it started and the person approved to finish. */
const FINISH_WITHIN_MS = 5_000;

export class DownloadHolds {
  private readonly pending = new Map<number, Pending>();
  /** Sessions whose person just approved a click on a download link, until when. */
  private readonly passes = new Map<string, number>();
  /** Commands running now, and when the last one ended. */
  private running = 0;
  private lastEnded = 0;
  /**
   * The action of the latest command: a download held while it runs is asked for under its name, so
   * the gateway gives that command the approval's time as it does for any approval the command waits for.
   */
  private lastAction = 'download';
  /** How many downloads began so far (see Pending.seq). */
  private created = 0;

  constructor(private readonly approvals: TabApprovals) {
    approvals.onDownloadApproved = (sessionId) =>
      this.passes.set(sessionId, Date.now() + APPROVED_CLICK_PASS_MS);
  }

  /** Registers the listeners; called at the worker's top level, as Chrome requires. */
  install(): void {
    chrome.downloads.onCreated.addListener((item) => {
      this.entry(item.id);
    });
    chrome.downloads.onDeterminingFilename.addListener((item, suggest) => {
      void this.judge(item).then(
        (outcome) => {
          if (outcome === 'allowed') suggest();
          else void chrome.downloads.cancel(item.id).catch(() => undefined);
        },
        () => void chrome.downloads.cancel(item.id).catch(() => undefined),
      );
      return true;
    });
  }

  /** A command of the agent starts: what it sets off is the share's. Returns the end to call. */
  begin(action: string): { created: number; end(): void } {
    this.running++;
    this.lastAction = action;
    let ended = false;
    return {
      created: this.created,
      end: () => {
        if (ended) return;
        ended = true;
        this.running--;
        this.lastEnded = Date.now();
      },
    };
  }

  /**
   * Waits until every download the command started (created since `created`) is decided, and answers
   * what the command should report: the downloads approved, or the refusal of one the person denied.
   */
  async settle(created: number, signal: AbortSignal): Promise<DownloadInfo[]> {
    if (this.created === created) return [];
    const aborted = new Promise<null>((resolve) => {
      if (signal.aborted) resolve(null);
      signal.addEventListener('abort', () => resolve(null), { once: true });
    });
    const mine: { id: number; outcome: Outcome; reason?: string }[] = [];
    for (const [id, pending] of this.pending) {
      if (pending.seq <= created) continue;
      const result = await Promise.race([pending.decided, aborted]);
      if (result?.sessionId)
        mine.push({ id, outcome: result.outcome, ...(result.reason ? { reason: result.reason } : {}) });
    }
    const refused = mine.find((d) => d.outcome !== 'allowed');
    if (refused) {
      const code =
        refused.outcome === 'timeout'
          ? 'approval_timeout'
          : refused.outcome === 'unavailable'
            ? 'approval_unavailable'
            : 'approval_denied';
      throw new TabgateError(
        code,
        `The action ran, but the download it started was ${refused.reason ?? 'refused'}, so it was cancelled and nothing was saved.`,
      );
    }
    const infos: DownloadInfo[] = [];
    for (const d of mine) {
      let info = await this.infoOf(d.id);
      for (
        const until = Date.now() + FINISH_WITHIN_MS;
        info?.state === 'in_progress' && Date.now() < until;
      ) {
        if (signal.aborted) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
        info = await this.infoOf(d.id);
      }
      if (info) infos.push(info);
    }
    return infos;
  }

  /** browser_downloads: the session's downloads as Chrome has them now. */
  async list(sessionId: string): Promise<DownloadInfo[]> {
    const records = (await this.records())[sessionId] ?? [];
    const infos: DownloadInfo[] = [];
    for (const record of records) {
      const info = await this.infoOf(record.id, record);
      if (info) infos.push(info);
    }
    return infos;
  }

  private entry(id: number): Pending {
    let pending = this.pending.get(id);
    if (!pending) {
      let resolve!: Pending['resolve'];
      const decided = new Promise<Awaited<Pending['decided']>>((r) => (resolve = r));
      pending = { decided, resolve, seq: ++this.created };
      this.pending.set(id, pending);
      // Kept while anybody may wait on it; the record in storage outlives it.
      void decided.then(() => setTimeout(() => this.pending.delete(id), AFTER_COMMAND_MS));
    }
    return pending;
  }

  /** Whether the share started it, and if so what the person decided. */
  private async judge(item: DownloadItem): Promise<Outcome> {
    const pending = this.entry(item.id);
    let result: Awaited<Pending['decided']> = { sessionId: null, outcome: 'allowed' };
    try {
      result = await this.decide(item);
      return result.outcome;
    } catch (error) {
      // Fail closed: a download of the share that could not be asked about is not saved.
      const why = error instanceof Error ? error.message : String(error);
      result = {
        sessionId: 'unknown',
        outcome: 'unavailable',
        reason: `not asked for (${why.slice(0, 200)})`,
      };
      return 'unavailable';
    } finally {
      pending.resolve(result);
    }
  }

  private async decide(item: DownloadItem): Promise<Awaited<Pending['decided']>> {
    const notOurs = { sessionId: null, outcome: 'allowed' as const };
    if (item.byExtensionId === chrome.runtime.id) return notOurs;
    const share = await readLocal('share');
    if (!share) return notOurs;
    const sessionId = share.session_id;
    if (!(await this.startedByShare(item, share.tab_ids))) return notOurs;
    const name = baseName(item.filename) || urlName(item.finalUrl ?? item.url) || 'download';
    const pass = this.passes.get(sessionId);
    if (pass !== undefined && pass >= Date.now()) {
      // The person approved the click that started it, a moment ago: once.
      this.passes.delete(sessionId);
      await this.keep({ id: item.id, session_id: sessionId, name });
      return { sessionId, outcome: 'allowed' };
    }
    const state = await this.approvals.read(sessionId);
    if (state.stopped) {
      await this.keep({ id: item.id, session_id: sessionId, name, refused: 'stopped by the person' });
      return { sessionId, outcome: 'denied', reason: 'cancelled: the person stopped this session' };
    }
    if (!state.policy.classes.includes('download')) {
      await this.keep({ id: item.id, session_id: sessionId, name });
      return { sessionId, outcome: 'allowed' };
    }
    await this.keep({ id: item.id, session_id: sessionId, name, held: true });
    const from = originOf(item.referrer) ?? originOf(item.finalUrl ?? item.url) ?? 'null';
    const size = item.totalBytes > 0 ? `, ${item.totalBytes} bytes` : '';
    const during = this.running > 0 || Date.now() - this.lastEnded < AFTER_COMMAND_MS;
    try {
      await this.approvals.askDownload(
        sessionId,
        during ? this.lastAction : 'download',
        { download_id: item.id, url: item.url.slice(0, 500), name },
        {
          ref: null,
          frameOrigin: from,
          classes: ['download'],
          summary: `download ${JSON.stringify(name.slice(0, 100))}${size} from ${(item.finalUrl ?? item.url).slice(0, 200)}`,
        },
        new AbortController().signal,
      );
    } catch (error) {
      const timeout = error instanceof TabgateError && error.code === 'approval_timeout';
      const reason = timeout ? 'not approved in time' : 'denied by the person';
      await this.keep({ id: item.id, session_id: sessionId, name, refused: reason });
      return { sessionId, outcome: timeout ? 'timeout' : 'denied', reason };
    }
    await this.keep({ id: item.id, session_id: sessionId, name });
    return { sessionId, outcome: 'allowed' };
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
      const origin = originOf(url);
      return origin !== null && origins.has(origin);
    });
  }

  private async records(): Promise<Record<string, KeptDownload[]>> {
    return ((await chrome.storage.session.get(STORE_KEY))[STORE_KEY] as Record<string, KeptDownload[]>) ?? {};
  }

  private async keep(record: KeptDownload): Promise<void> {
    const all = await this.records();
    const list = (all[record.session_id] ?? []).filter((r) => r.id !== record.id);
    list.push(record);
    all[record.session_id] = list.slice(-KEPT_PER_SESSION);
    await chrome.storage.session.set({ [STORE_KEY]: all });
  }

  private async infoOf(id: number, known?: KeptDownload): Promise<DownloadInfo | null> {
    const record =
      known ?? Object.values(await this.records()).flatMap((list) => list.filter((r) => r.id === id))[0];
    const [item] = await chrome.downloads.search({ id }).catch(() => [] as DownloadItem[]);
    if (!record && !item) return null;
    const name = (item?.filename ? baseName(item.filename) : '') || record?.name || 'download';
    const size = item ? Math.max(0, item.state === 'complete' ? item.fileSize : item.totalBytes) : 0;
    const mime = item?.mime ?? '';
    if (record?.refused) return { name, size, mime, state: 'stopped', reason: record.refused };
    if (record?.held) return { name, size, mime, state: 'awaiting_approval' };
    if (!item) return { name, size, mime, state: 'stopped', reason: 'removed from the browser' };
    if (item.state === 'complete') return { name, size, mime, state: 'complete' };
    if (item.state === 'interrupted')
      return { name, size, mime, state: 'stopped', reason: `interrupted (${item.error ?? 'unknown'})` };
    return { name, size: Math.max(0, item.bytesReceived), mime, state: 'in_progress' };
  }
}
