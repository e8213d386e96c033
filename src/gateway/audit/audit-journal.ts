/**
 * The audit log's write-ahead journal. A call that reached a browser must be in the log even if the
 * gateway is killed the next instant, but a committed SQLite insert costs ~15 syscalls (WAL frames,
 * locks, now and then a checkpoint's fsync). So each call is journaled as one line in a file of this
 * gateway's own when it is dispatched (one `write`, durable against `kill -9` like a WAL commit with
 * `synchronous=NORMAL`), and its row, with how it ended, reaches SQLite in a batch within 50 ms of its
 * end (at once before `GET /v1/audit` reads). Its end line is on disk before its answer goes out, so an
 * answered call's outcome survives a kill -9: `end` queues a microtask that writes every end line
 * still waiting, in one write, and the answer only leaves in reactions to the promise `end` runs in,
 * which come after that microtask. Calls that end in the same turn share the write, and a start line
 * written meanwhile carries the waiting end lines along, so under load most ends cost no write of
 * their own. A call its gateway never saw end is logged as `interrupted`.
 *
 * The folded offset of a file (the first line still needed to rebuild an unfolded row) is kept in the
 * same SQLite transaction as the rows, and every row carries its `journal_ref`: the next process to
 * open the log folds a dead gateway's journal (journal-recovery.ts) without a row lost or repeated.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../log/logger.js';
import type { AuditStore, NewAuditEntry } from './audit-store.js';
import { endLine, journalRef, startLine, type AuditEnd, type AuditStart } from './journal-lines.js';
import { foldJournals, journalDir, newJournalFileName } from './journal-recovery.js';

const FOLD_DELAY_MS = 50;
/** Ended calls waiting before a fold runs at once rather than on its timer. */
const FOLD_BATCH = 256;
/** Past this size the journal moves to a fresh file; the old one goes once its calls are folded. */
const ROTATE_BYTES = 1 << 20;
/**
 * A file is made this long (sparse) when it is opened, and lines are written at their offset: a write
 * that grows a file makes ext4 journal the new size, which cost about as much again as the write itself.
 * Past the written lines the file reads as NUL bytes, which no line contains (recovery stops there).
 */
const PRESIZED_BYTES = ROTATE_BYTES + (64 << 10);

/** One journal file and the calls in it that have not ended. */
class JournalFile {
  fd: number;
  /** Bytes of lines written: where the next line goes. */
  size = 0;
  /** The file's length on disk, NUL bytes past `size`. */
  private capacity = 0;
  seq = 0;
  /** Started, not ended: seq → where its start line's write began. */
  readonly open = new Map<number, number>();

  constructor(
    readonly name: string,
    dir: string,
  ) {
    this.fd = fs.openSync(path.join(dir, name), 'ax', 0o600);
    this.reserve(PRESIZED_BYTES);
  }

  /** Writes text after the lines; how many of its bytes were not written (0: all). Throws as fs.writeSync does. */
  append(text: string): number {
    const bytes = Buffer.byteLength(text);
    if (this.size + bytes > this.capacity) this.reserve(Math.max(this.capacity * 2, this.size + bytes));
    const written = fs.writeSync(this.fd, text, this.size);
    this.size += written;
    return bytes - written;
  }

  private reserve(length: number): void {
    fs.ftruncateSync(this.fd, length);
    this.capacity = length;
  }

  /** Where a fold after a crash must start: the first write of a call open besides `folding`, else the end. */
  foldedOffset(folding: ReadonlySet<number>): number {
    let first = this.size;
    for (const [seq, offset] of this.open) if (offset < first && !folding.has(seq)) first = offset;
    return first;
  }

  closeFd(): void {
    if (this.fd === -1) return;
    try {
      // A file that stays (a call still open in it) keeps only its lines.
      fs.ftruncateSync(this.fd, this.size);
    } catch {
      // Recovery reads up to the NUL bytes just as well.
    }
    try {
      fs.closeSync(this.fd);
    } catch {
      // Already unusable.
    }
    this.fd = -1;
  }
}

/** A started call, as `begin` hands it back to `end`; `file` is null when its start line failed. */
export interface JournalTicket {
  file: JournalFile | null;
  seq: number;
  start: AuditStart;
}

export interface AuditJournalOptions {
  home: string;
  store: AuditStore;
  log: Logger;
}

interface EndedCall {
  ticket: JournalTicket;
  end: AuditEnd;
}

function rowOf({ ticket: { start }, end }: EndedCall): NewAuditEntry {
  return { ...start, origin: start.origin ?? end.origin, outcome: end.outcome, duration_ms: end.duration_ms };
}

export class AuditJournal {
  private readonly dir: string;
  private current: JournalFile;
  /** Files written no more (rotated, or a write failed) that still have calls open. */
  private readonly retired = new Set<JournalFile>();
  /** Calls of the current file whose end line is not written yet (a microtask away, or a start line). */
  private unwritten: EndedCall[] = [];
  private endsQueued = false;
  private ended: EndedCall[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The last fold failed: only its retry timer folds again, not every call that ends meanwhile. */
  private failing = false;
  private closed = false;

  constructor(private readonly o: AuditJournalOptions) {
    this.dir = journalDir(o.home);
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    foldJournals(o.store, this.dir, o.log);
    this.current = this.newFile();
  }

  /**
   * Journals a dispatched call: once this returns, the call survives the gateway being killed. A write
   * that fails is logged loudly, and the call is still logged (from memory) when it ends.
   */
  begin(start: AuditStart): JournalTicket {
    if (this.closed) return { file: null, seq: 0, start };
    if (this.current.fd === -1 || this.current.size >= ROTATE_BYTES) {
      try {
        this.rotate();
      } catch (error) {
        // The command is already on its way: it must still be answered, and logged from memory.
        this.o.log.error('audit journal file could not be opened', { reason: (error as Error).message });
        return { file: null, seq: 0, start };
      }
    }
    const file = this.current;
    const seq = ++file.seq;
    const offset = file.size;
    // End lines still waiting for their write go first, in the same write.
    if (!this.write(file, this.endLines() + startLine(seq, start))) return { file: null, seq, start };
    this.unwritten = [];
    file.open.set(seq, offset);
    return { file, seq, start };
  }

  /**
   * Records how a journaled call ended; its end line is written before the caller's next reaction runs
   * (a microtask, shared by every call ending in this turn), its row reaches SQLite with the next fold.
   */
  end(ticket: JournalTicket, end: AuditEnd): void {
    // After close the store is gone: a call still open then is folded as interrupted at the next start.
    if (this.closed) return;
    const call = { ticket, end };
    if (ticket.file && ticket.file === this.current) {
      this.unwritten.push(call);
      if (!this.endsQueued) {
        this.endsQueued = true;
        queueMicrotask(this.writeQueuedEnds);
      }
    }
    this.ended.push(call);
    if (this.ended.length >= FOLD_BATCH && !this.failing) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FOLD_DELAY_MS);
  }

  /** Folds every ended call into SQLite now (before a read of the log, and at close). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.ended.length === 0) return;
    const batch = this.ended;
    const folding = new Map<JournalFile, Set<number>>();
    for (const { ticket } of batch) {
      if (!ticket.file) continue;
      let seqs = folding.get(ticket.file);
      if (!seqs) folding.set(ticket.file, (seqs = new Set()));
      seqs.add(ticket.seq);
    }
    try {
      this.o.store.transaction(() => {
        for (const call of batch) {
          const { file, seq } = call.ticket;
          this.o.store.append(rowOf(call), file ? journalRef(file.name, seq) : null);
        }
        for (const [file, seqs] of folding) this.o.store.setJournalOffset(file.name, file.foldedOffset(seqs));
      });
    } catch (error) {
      // The calls are safe in the journal; the next fold (or the next start) picks them up.
      this.o.log.warn('audit journal fold failed; will retry', { reason: (error as Error).message });
      this.failing = true;
      this.timer = setTimeout(() => this.flush(), FOLD_DELAY_MS * 20);
      this.timer.unref();
      return;
    }
    this.failing = false;
    for (const [file, seqs] of folding) for (const seq of seqs) file.open.delete(seq);
    this.ended = [];
    for (const file of this.retired) if (file.open.size === 0) this.remove(file);
  }

  /** Folds what has ended; the journal goes unless a call is still open in it. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.writeEnds();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const file of [this.current, ...this.retired]) {
      file.closeFd();
      if (file.open.size === 0) this.remove(file);
    }
  }

  private endLines(): string {
    let text = '';
    for (const { ticket, end } of this.unwritten) text += endLine(ticket.seq, end);
    return text;
  }

  private readonly writeQueuedEnds = (): void => {
    this.endsQueued = false;
    if (!this.closed) this.writeEnds();
  };

  private writeEnds(): void {
    if (this.unwritten.length === 0 || this.current.fd === -1) return;
    this.write(this.current, this.endLines());
    this.unwritten = [];
  }

  /** Writes text to a journal file; false (logged, and the file written no more) when it failed. */
  private write(file: JournalFile, text: string): boolean {
    try {
      const missing = file.append(text);
      if (missing === 0) return true;
      this.o.log.error('audit journal write cut short', { missing });
    } catch (error) {
      this.o.log.error('audit journal write failed', { reason: (error as Error).message });
    }
    // A partial line must not glue onto the next one: the next call starts a new file.
    file.closeFd();
    return false;
  }

  private newFile(): JournalFile {
    return new JournalFile(newJournalFileName(), this.dir);
  }

  private rotate(): void {
    const old = this.current;
    // The old file's last end lines go into it, so a crash before the next fold still knows them.
    this.writeEnds();
    this.unwritten = [];
    old.closeFd();
    this.current = this.newFile();
    if (old.open.size === 0) this.remove(old);
    else this.retired.add(old);
  }

  private remove(file: JournalFile): void {
    file.closeFd();
    this.retired.delete(file);
    try {
      fs.rmSync(path.join(this.dir, file.name), { force: true });
    } catch (error) {
      // Its rows are in; the file and its folded offset stay for the next gateway, which skips them.
      this.o.log.warn('audit journal file could not be removed', { reason: (error as Error).message });
      return;
    }
    this.o.store.forgetJournal(file.name);
  }
}
