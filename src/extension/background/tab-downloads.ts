/**
 * Downloads on the user's tab (docs/extension.md "Downloads"): kept in the session's folder on the
 * gateway's machine, as on every backend, and never in the person's own downloads folder. A shared tab's
 * document response that will become a download (download-response.ts) is paused below the page
 * (tab-network.ts), asked for in the popup when the session's policy has the `download` class
 * (download-approval.ts), then its body is streamed to the gateway (download-sender.ts), which writes,
 * caps and hashes it. The request is then failed, so Chrome saves nothing.
 *
 * This is also the engine's DownloadLedger for the shared tabs: a call reports the downloads it started,
 * browser_downloads lists the session's. The list is kept in session storage (the worker may die).
 */
import { TabgateError, type DownloadAckParams, type DownloadInfo, type Frame } from '../../protocol/index.js';
import { whenSettled, type DownloadLedger } from '../../engine/index.js';
import { chrome } from '../chrome-api.js';
import { downloadOf } from './download-response.js';
import { readLocal } from './durable-state.js';
import { DownloadApproval } from './download-approval.js';
import { DownloadSender, stoppedInfo } from './download-sender.js';
import type { TabApprovals } from './tab-approvals.js';
import type { Decision, PausedResponse } from './tab-network.js';

/** After a command ends, a download that starts within this is still the agent's doing. */
const AFTER_COMMAND_MS = 5_000;
const KEPT_PER_SESSION = 100;
/** Session storage: survives the worker's restarts, not the browser's, and is not the page's. */
const STORE_KEY = 'tabgate_tab_downloads';
/** A download's URL stays "taken" this long, so chrome.downloads' echo of it is not a second one. */
const TAKEN_FOR_MS = 30_000;

const CONTINUE: Decision = { go: true };
/** Fails the request as a finished download leaves the page: where it was. */
const TAKEN: Decision = { go: false, errorReason: 'Aborted' };

interface Entry {
  info: DownloadInfo;
  /** Its place in the order downloads began. */
  seq: number;
  /** Still asked for or on its way: a call's settle waits for it. */
  busy: boolean;
  /** In a call's result already. */
  reported: boolean;
}

export class TabDownloads implements DownloadLedger {
  private entries: Entry[] = [];
  private sessionId: string | null = null;
  private began = 0;
  private lastDrain = 0;
  /** How many downloads had begun at the last drain (the end of the last call). */
  private drainedSeq = 0;
  private readonly waiters = new Set<() => void>();
  private readonly approval: DownloadApproval;
  private readonly sender: DownloadSender;
  private readonly taken = new Map<string, number>();
  private running = 0;
  private lastEnded = 0;
  private lastAction = 'download';
  /** What the running commands must answer instead of their result: a download refused meanwhile. */
  private refusal: TabgateError | null = null;

  constructor(
    approvals: TabApprovals,
    /** Sends a frame to the gateway; false when the socket is not open. */
    send: (frame: Frame) => boolean,
  ) {
    this.approval = new DownloadApproval(approvals);
    this.sender = new DownloadSender(send);
  }

  /** Reads the session's list back (a worker Chrome restarted has none in memory). */
  async ready(sessionId: string): Promise<void> {
    if (this.sessionId === sessionId) return;
    const all = ((await chrome.storage.session.get(STORE_KEY))[STORE_KEY] ?? {}) as Record<
      string,
      DownloadInfo[]
    >;
    if (this.sessionId === sessionId) return;
    this.sessionId = sessionId;
    this.entries = (all[sessionId] ?? []).map((info) => ({ info, seq: 0, busy: false, reported: true }));
  }

  /** A command of the agent starts: what it sets off is the share's. Returns the end to call. */
  begin(action: string): { end(): TabgateError | null } {
    this.running++;
    this.lastAction = action;
    if (this.running === 1) this.refusal = null;
    let ended = false;
    return {
      end: () => {
        if (ended) return null;
        ended = true;
        this.running--;
        this.lastEnded = Date.now();
        const refusal = this.refusal;
        if (this.running === 0) this.refusal = null;
        return refusal;
      },
    };
  }

  /** The gateway's answer to a chunk. */
  onAck(ack: DownloadAckParams): void {
    this.sender.onAck(ack);
  }

  /** Whether chrome.downloads' item of this URL is the echo of a download taken here. */
  wasTaken(url: string): boolean {
    const until = this.taken.get(url);
    return until !== undefined && until >= Date.now();
  }

  /** A download the shared tab started that the network layer could not take: reported, not saved. */
  refused(sessionId: string, name: string, reason: string): void {
    if (sessionId !== this.sessionId) return;
    this.add(stoppedInfo(name, reason), false);
    if (this.commandRunning())
      this.refusal ??= new TabgateError(
        'unsupported_on_backend',
        `The action ran, but the download it started ${reason}.`,
      );
  }

  /** A shared tab's document response: a download is taken, anything else goes on to the page. */
  async respond(response: PausedResponse): Promise<Decision> {
    const found = downloadOf(response);
    if (!found) return CONTINUE;
    const share = await readLocal('share');
    if (!share) return TAKEN;
    await this.ready(share.session_id);
    this.taken.set(response.url, Date.now() + TAKEN_FOR_MS);
    const name = found.name.slice(0, 200);
    const entry = this.add({ name, size: 0, mime: '', state: 'awaiting_approval' }, true);
    try {
      const refusal = await this.approval.decide({
        sessionId: share.session_id,
        name,
        size: found.size,
        url: response.url,
        action: () => (this.commandRunning() ? this.lastAction : 'download'),
      });
      if (refusal) {
        this.settleEntry(entry, stoppedInfo(name, refusal.reason));
        this.refusal ??= new TabgateError(
          refusal.code,
          `The action ran, but the download it started was ${refusal.reason}, so it was stopped and nothing was saved.`,
        );
        return TAKEN;
      }
      entry.info = { ...entry.info, state: 'in_progress' };
      this.settleEntry(entry, await this.sender.stream(response, name, found.size));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.settleEntry(entry, stoppedInfo(name, `lost (${why.slice(0, 200)})`));
    }
    return TAKEN;
  }

  /** A command of the agent runs, or ended a moment ago: what starts now is its doing. */
  private commandRunning(): boolean {
    return this.running > 0 || Date.now() - this.lastEnded < AFTER_COMMAND_MS;
  }

  private add(info: DownloadInfo, busy: boolean): Entry {
    const entry: Entry = { info, seq: ++this.began, busy, reported: false };
    this.entries.push(entry);
    if (this.entries.length > KEPT_PER_SESSION) this.entries.shift();
    void this.persist();
    this.wake();
    return entry;
  }

  private settleEntry(entry: Entry, info: DownloadInfo): void {
    entry.info = info;
    entry.busy = false;
    void this.persist();
    this.wake();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  private async persist(): Promise<void> {
    const sessionId = this.sessionId;
    if (sessionId === null) return;
    const all = ((await chrome.storage.session.get(STORE_KEY))[STORE_KEY] ?? {}) as Record<
      string,
      DownloadInfo[]
    >;
    all[sessionId] = this.entries.map((e) => e.info);
    await chrome.storage.session.set({ [STORE_KEY]: all });
  }

  list(): DownloadInfo[] {
    return this.entries.map((e) => e.info);
  }

  drain(): DownloadInfo[] {
    // One still under way is reported by the call during which it ends.
    const fresh = this.entries.filter((e) => !e.reported && !e.busy);
    for (const entry of fresh) entry.reported = true;
    this.lastDrain = Date.now();
    this.drainedSeq = this.began;
    return fresh.map((e) => e.info);
  }

  /**
   * Resolves once no download the shared tabs started is under way (or after `timeoutMs`, which does
   * not run while the person is asked: the gateway gives the call the approval's time). `graceMs`: as
   * the local browser's ledger, a download the last call started may not have begun yet.
   */
  settle(timeoutMs: number, graceMs = 0): Promise<void> {
    const graceUntil = this.lastDrain + graceMs;
    const known = this.began;
    // Only what began since the last call's report: an older download still waiting for the person
    // (one they started themselves) does not hold every call up.
    const since = this.drainedSeq;
    const busy = () => this.entries.some((e) => e.busy && e.seq > since);
    const asking = () =>
      this.entries.some((e) => e.busy && e.seq > since && e.info.state === 'awaiting_approval');
    const settled = () => !busy() && (this.began > known || Date.now() >= graceUntil);
    let deadline = Date.now() + timeoutMs;
    return whenSettled(this.waiters, settled, () => {
      if (asking()) deadline = Math.max(deadline, Date.now() + timeoutMs);
      return deadline;
    });
  }
}
