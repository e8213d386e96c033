/**
 * Downloads on the user's tab (docs/extension.md "Downloads"): kept in the session's folder on the
 * gateway's machine, as on every backend, and never in the person's own downloads folder. A shared tab's
 * document response that will become a download (download-response.ts) is paused below the page
 * (tab-network.ts), asked for in the popup when the session's policy has the `download` class (a click
 * the person approved as a download covers the download it starts), then its body is read from the
 * debugger (`Fetch.takeResponseBodyAsStream`, `IO.read`) and streamed to the gateway in `download`
 * frames, which writes, caps and hashes it. The request is then failed, so Chrome saves nothing.
 *
 * This is also the engine's DownloadLedger for the shared tabs: a call reports the downloads it started,
 * browser_downloads lists the session's. The list is kept in session storage (the worker may die).
 */
import {
  DOWNLOAD_CHUNK_BYTES,
  FRAME_METHODS,
  TabgateError,
  type DownloadAckParams,
  type DownloadInfo,
  type Frame,
} from '../../protocol/index.js';
import { whenSettled, type DownloadLedger } from '../../engine/index.js';
import { chrome } from '../chrome-api.js';
import { downloadOf } from './download-response.js';
import { readLocal } from './durable-state.js';
import type { TabApprovals } from './tab-approvals.js';
import type { Decision, PausedResponse } from './tab-network.js';

/** How long the approval of a click on a download link lets the download it starts through. */
const APPROVED_CLICK_PASS_MS = 15_000;
/** After a command ends, a download that starts within this is still the agent's doing. */
const AFTER_COMMAND_MS = 5_000;
/** How long the gateway may take to answer one chunk. */
const ACK_WITHIN_MS = 30_000;
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

function hexId(): string {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000)
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

function fromBase64(data: string): Uint8Array {
  const binary = atob(data);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

const stoppedInfo = (name: string, reason: string): DownloadInfo => ({
  name,
  size: 0,
  mime: '',
  state: 'stopped',
  reason,
});

export class TabDownloads implements DownloadLedger {
  private entries: Entry[] = [];
  private sessionId: string | null = null;
  private began = 0;
  private lastDrain = 0;
  /** How many downloads had begun at the last drain (the end of the last call). */
  private drainedSeq = 0;
  private readonly waiters = new Set<() => void>();
  private readonly acks = new Map<string, (ack: DownloadAckParams) => void>();
  /** Sessions whose person just approved a click on a download link, until when. */
  private readonly passes = new Map<string, number>();
  private readonly taken = new Map<string, number>();
  private running = 0;
  private lastEnded = 0;
  private lastAction = 'download';
  /** What the running commands must answer instead of their result: a download refused meanwhile. */
  private refusal: TabgateError | null = null;

  constructor(
    private readonly approvals: TabApprovals,
    /** Sends a frame to the gateway; false when the socket is not open. */
    private readonly send: (frame: Frame) => boolean,
  ) {
    approvals.onDownloadApproved = (sessionId) =>
      this.passes.set(sessionId, Date.now() + APPROVED_CLICK_PASS_MS);
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
    this.acks.get(`${ack.download_id}:${ack.seq}`)?.(ack);
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
    if (this.running > 0 || Date.now() - this.lastEnded < AFTER_COMMAND_MS)
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
      const refusal = await this.approve(share.session_id, name, found.size, response.url);
      if (refusal) {
        this.settleEntry(entry, stoppedInfo(name, refusal.reason));
        this.refusal ??= new TabgateError(
          refusal.code,
          `The action ran, but the download it started was ${refusal.reason}, so it was stopped and nothing was saved.`,
        );
        return TAKEN;
      }
      entry.info = { ...entry.info, state: 'in_progress' };
      this.settleEntry(entry, await this.stream(response, name, found.size));
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      this.settleEntry(entry, stoppedInfo(name, `lost (${why.slice(0, 200)})`));
    }
    return TAKEN;
  }

  /** Null when it may go on; else why not, as the approval would have refused the action. */
  private async approve(
    sessionId: string,
    name: string,
    size: number | undefined,
    url: string,
  ): Promise<{
    code: 'approval_denied' | 'approval_timeout' | 'approval_unavailable';
    reason: string;
  } | null> {
    const pass = this.passes.get(sessionId);
    if (pass !== undefined && pass >= Date.now()) {
      // The person approved the click that started it, a moment ago: once.
      this.passes.delete(sessionId);
      return null;
    }
    let state;
    try {
      state = await this.approvals.read(sessionId);
    } catch {
      return {
        code: 'approval_unavailable',
        reason: 'not asked for (the approval policy could not be read)',
      };
    }
    if (state.stopped)
      return { code: 'approval_denied', reason: 'cancelled: the person stopped this session' };
    if (!state.policy.classes.includes('download')) return null;
    const during = this.running > 0 || Date.now() - this.lastEnded < AFTER_COMMAND_MS;
    let origin = 'null';
    try {
      origin = new URL(url).origin;
    } catch {
      // Stays unnamed.
    }
    try {
      await this.approvals.askDownload(
        sessionId,
        during ? this.lastAction : 'download',
        { url: url.slice(0, 500), name },
        {
          ref: null,
          frameOrigin: origin,
          classes: ['download'],
          summary: `download ${JSON.stringify(name.slice(0, 100))}${size !== undefined ? `, ${size} bytes` : ''} from ${url.slice(0, 200)}`,
        },
        new AbortController().signal,
      );
      return null;
    } catch (error) {
      if (error instanceof TabgateError && error.code === 'approval_timeout')
        return { code: 'approval_timeout', reason: 'not approved in time' };
      return { code: 'approval_denied', reason: 'denied by the person' };
    }
  }

  /** Reads the body from the debugger and sends it to the gateway, chunk by chunk, each answered. */
  private async stream(
    response: PausedResponse,
    name: string,
    size: number | undefined,
  ): Promise<DownloadInfo> {
    const { session } = response;
    const id = hexId();
    const { stream } = await session.send<{ stream: string }>('Fetch.takeResponseBodyAsStream', {
      requestId: response.requestId,
    });
    let seq = 0;
    try {
      for (;;) {
        const read = await session.send<{ data: string; base64Encoded?: boolean; eof: boolean }>('IO.read', {
          handle: stream,
          size: DOWNLOAD_CHUNK_BYTES,
        });
        const bytes = read.base64Encoded ? fromBase64(read.data) : new TextEncoder().encode(read.data);
        // Text comes back decoded and may grow as UTF-8: each frame stays within one chunk.
        for (let at = 0; at < bytes.length || (at === 0 && read.eof); at += DOWNLOAD_CHUNK_BYTES) {
          const part = bytes.subarray(at, at + DOWNLOAD_CHUNK_BYTES);
          const last = read.eof && at + DOWNLOAD_CHUNK_BYTES >= bytes.length;
          const ack = await this.chunk({
            download_id: id,
            seq,
            ...(seq === 0 ? { name, ...(size !== undefined ? { expected_size: size } : {}) } : {}),
            data_base64: toBase64(part),
            ...(last ? { end: true } : {}),
          });
          seq++;
          if (!ack.ok) return ack.info ?? stoppedInfo(name, 'stopped by the gateway');
          if (last) return ack.info ?? stoppedInfo(name, 'lost');
        }
      }
    } finally {
      await session.send('IO.close', { handle: stream }).catch(() => undefined);
    }
  }

  private chunk(
    params: Extract<Frame, { method: 'browser.controller.download' }>['params'],
  ): Promise<DownloadAckParams> {
    const key = `${params.download_id}:${params.seq}`;
    return new Promise<DownloadAckParams>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.acks.delete(key);
        reject(new Error('the gateway did not answer'));
      }, ACK_WITHIN_MS);
      this.acks.set(key, (ack) => {
        clearTimeout(timer);
        this.acks.delete(key);
        resolve(ack);
      });
      if (!this.send({ method: FRAME_METHODS.download, params })) {
        clearTimeout(timer);
        this.acks.delete(key);
        reject(new Error('the gateway is not connected'));
      }
    });
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
