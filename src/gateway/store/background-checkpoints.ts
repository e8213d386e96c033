/**
 * SQLite's checkpoints (copying the WAL back into state.db, then an fsync) off the gateway's event
 * loop. By default SQLite runs one inside the commit that leaves the WAL past 1,000 pages, on the
 * connection that wrote: on the gateway's only thread, for the gateway's connection. (The audit folds,
 * the bulk of the writes, have a thread and a connection of their own, background-folds.ts, which keeps
 * SQLite's default.) Measured on the development machine, ~10 ms per 930 pages; on a loaded disk
 * 300–560 ms, during which no call moved. Here that connection never checkpoints. Once the WAL first
 * passes `startBytes`, a worker thread with a connection of its own runs a PASSIVE checkpoint every
 * `everyMs` (one that never waits for, nor blocks, the writer), and the WAL is cut back to `startBytes`
 * when SQLite starts it over. A writer that never leaves the worker a gap to finish in would let the
 * WAL grow without end: past `capBytes` the worker pauses and the gateway's connection runs one
 * checkpoint itself (the pause SQLite's default takes, only rarer), after which its next write starts
 * the WAL over. The WAL so stays within `capBytes` plus what is written in `everyMs`. Should the worker
 * fail, the gateway's connection checkpoints itself again for good.
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type { Logger } from '../../log/logger.js';
import type { Db } from './database.js';

/** SQLite's own default: checkpoint in the commit that leaves the WAL past this many pages. */
const SQLITE_AUTOCHECKPOINT_PAGES = 1000;

export interface BackgroundCheckpointOptions {
  /** The WAL size at which the worker starts (and the size the WAL is cut back to). */
  startBytes?: number;
  /** The WAL size past which the gateway's connection checkpoints once (default 16 × `startBytes`). */
  capBytes?: number;
  /** How often the worker checkpoints, and how often the WAL's size is looked at until it starts. */
  everyMs?: number;
  /** Where the worker loads better-sqlite3 from (tests name a missing one, to see the fallback). */
  sqliteModule?: string;
  /** Told after each checkpoint the worker ran, with SQLite's answer. */
  onCheckpoint?: (result: { log: number; checkpointed: number }) => void;
}

/**
 * The worker's code, as CommonJS source: a worker's entry is a file path, which is a `.ts` file under
 * tsx and a `.js` one once built, and a worker does not inherit tsx's loader. Kept to the one loop.
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.sqliteModule);
const db = new Database(workerData.file, { fileMustExist: true });
db.pragma('busy_timeout = 0');
db.pragma('journal_size_limit = ' + workerData.startBytes);
// A PASSIVE checkpoint copies the frames there were when it began. The WAL starts over (and is cut
// back) only when a write begins with every frame copied, so one that others were appended during is
// followed at once by another, which has only those to copy: a short one, that fits between two
// writes. Bounded, so a writer that never pauses cannot keep this thread spinning.
const AGAIN_AT_ONCE = 8;
let timer = null;
let again = 0;
let lastLog = -1;
const checkpoint = () => {
  timer = null;
  let result;
  try {
    [result] = db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    // Another checkpoint holds its lock (SQLite answers busy rather than wait): the next round runs.
    if (error.code !== 'SQLITE_BUSY' && error.code !== 'SQLITE_LOCKED') throw error;
  }
  if (result) parentPort.postMessage({ log: result.log, checkpointed: result.checkpointed });
  const moved = result !== undefined && result.log !== lastLog;
  lastLog = result ? result.log : -1;
  again = moved && again < AGAIN_AT_ONCE ? again + 1 : 0;
  timer = again > 0 ? setImmediate(checkpoint) : setTimeout(checkpoint, workerData.everyMs);
};
const stop = () => {
  if (timer) {
    clearTimeout(timer);
    clearImmediate(timer);
  }
  timer = null;
};
// 'pause' while the gateway's connection checkpoints itself (a checkpoint here would hold the lock
// its commits need), 'resume' after, 'close' at the end.
parentPort.on('message', (message) => {
  stop();
  if (message === 'pause') parentPort.postMessage('paused');
  else if (message === 'resume') {
    again = 0;
    timer = setTimeout(checkpoint, workerData.everyMs);
    return;
  }
  if (message === 'close') {
    db.close();
    parentPort.close();
  }
});
checkpoint();
`;

export class BackgroundCheckpoints {
  private worker: Worker | null = null;
  private readonly look: NodeJS.Timeout;
  private closed = false;
  /** Past `capBytes`: the worker is asked to pause, so that this thread's checkpoint gets the lock. */
  private pausing = false;
  private readonly startBytes: number;
  private readonly capBytes: number;
  private readonly everyMs: number;

  constructor(
    private readonly db: Db,
    private readonly file: string,
    private readonly log: Logger,
    private readonly options: BackgroundCheckpointOptions = {},
  ) {
    this.startBytes = options.startBytes ?? 4 * 1024 * 1024;
    this.capBytes = options.capBytes ?? 16 * this.startBytes;
    this.everyMs = options.everyMs ?? 1000;
    db.pragma('wal_autocheckpoint = 0');
    db.pragma(`journal_size_limit = ${this.startBytes}`);
    this.look = setInterval(() => this.lookAtWal(), this.everyMs);
    this.look.unref();
  }

  /** Stops the worker (its connection closed first) before the gateway closes its own connection. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.look);
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    worker.postMessage('close');
    const gone = await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 1000, false))]);
    if (gone === false) await worker.terminate();
  }

  private lookAtWal(): void {
    fs.stat(`${this.file}-wal`, (error, stat) => {
      if (error || this.closed) return;
      if (!this.worker) {
        // Written past the cap before the first look: copied here at once, the worker keeps it down.
        if (stat.size >= this.capBytes) this.checkpointHere(null);
        if (stat.size >= this.startBytes) this.start();
      } else if (!this.pausing && stat.size >= this.capBytes) {
        this.pausing = true;
        this.worker.postMessage('pause');
      }
    });
  }

  /** With the worker paused (or not started): the whole WAL copied here, so the gateway's next write starts it over. */
  private checkpointHere(worker: Worker | null): void {
    this.pausing = false;
    if (this.worker !== worker) return;
    try {
      this.db.pragma('wal_checkpoint(PASSIVE)');
    } catch {
      // The connection is closing: nothing left to checkpoint from here.
    }
    worker?.postMessage('resume');
  }

  private autocheckpoint(pages: number): void {
    try {
      this.db.pragma(`wal_autocheckpoint = ${pages}`);
    } catch {
      // The connection is closing: nothing left to checkpoint from here.
    }
  }

  private start(): void {
    let worker: Worker;
    try {
      worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: {
          file: this.file,
          startBytes: this.startBytes,
          everyMs: this.everyMs,
          sqliteModule: this.options.sqliteModule ?? createRequire(import.meta.url).resolve('better-sqlite3'),
        },
      });
    } catch (error) {
      // No thread to be had (a process or memory limit): thrown here, in a stat's callback, it would
      // have ended the gateway.
      this.checkpointHereForGood((error as Error).message);
      return;
    }
    worker.unref();
    worker.on('message', (message: 'paused' | { log: number; checkpointed: number }) => {
      if (message === 'paused') this.checkpointHere(worker);
      else this.options.onCheckpoint?.(message);
    });
    worker.on('error', (error) => this.fallBack(worker, error.message));
    worker.on('exit', (code) => {
      if (this.worker === worker) this.fallBack(worker, `the checkpoint worker exited (${code})`);
    });
    this.worker = worker;
  }

  /** The worker failed: see checkpointHereForGood. */
  private fallBack(worker: Worker, reason: string): void {
    if (this.worker !== worker) return;
    this.worker = null;
    void worker.terminate();
    this.checkpointHereForGood(reason);
  }

  /** The gateway's connection checkpoints itself again, as SQLite does by default. */
  private checkpointHereForGood(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    clearInterval(this.look);
    this.log.warn('state.db checkpoints run on the gateway thread again', { reason });
    this.autocheckpoint(SQLITE_AUTOCHECKPOINT_PAGES);
  }
}
