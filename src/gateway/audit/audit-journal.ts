/**
 * The audit log's write-ahead journal. A call that reached a browser must be in the log even if the
 * gateway is killed the next instant, but a committed SQLite insert costs ~15 syscalls (WAL frames,
 * locks, now and then a checkpoint's fsync), and a PostgreSQL one a round trip. So each call is journaled as one line in a file of this
 * gateway's own when it is dispatched (one `write`: AuditLog.track sends the command first and journals
 * in the same synchronous turn, so the write overlaps the browser's work rather than adding ~3 µs to the
 * answer's path; a gateway killed between those two syscalls is the one case that leaves a call the
 * browser received without a row), and its row, with how it ended, reaches SQLite in
 * a batch (a *fold*) within 50 ms of its end, at once before `GET /v1/audit` reads. Folds run one
 * at a time, each taking every call ended before it starts. A call its gateway
 * never saw end is logged as `interrupted`. Calls that end together share one write, and a start line
 * written meanwhile carries the waiting end lines along, so under load most ends cost no write of their
 * own.
 *
 * What holds, and what test/security/audit-journal.property.test.ts checks against random
 * interleavings of calls, folds and kills:
 *
 * 1. Write before answer. `begin` returns only once the call's start line is written: from then on
 *    the call is logged whatever happens to the gateway. When the call ending is the only one in
 *    flight, `end` queues a microtask that writes every end line still waiting, and the answer leaves
 *    only in reactions to the promise `end` runs in, which come after it. With others in flight their
 *    ends are likely to arrive in the same event-loop iteration, each from a socket of its own with a
 *    microtask checkpoint between them (1,000 controllers: one write per end), so the write waits for
 *    `setImmediate`, and the answer waits for `endsWritten()`. Either way an answered call's
 *    outcome is on disk. A write is durable against `kill -9`
 *    once it returns (the kernel holds it), not against a power cut: like a SQLite WAL commit with
 *    `synchronous=NORMAL`.
 * 2. Fold offsets. A file's folded offset is the offset of the first line still needed to rebuild a
 *    row that is not in the table (the start line of the oldest call not yet folded), and it is
 *    stored in the same store transaction as the rows it accounts for. Every row carries its
 *    `journal_ref` (`file#seq`, unique), so lines past the offset that were folded already are
 *    skipped, and an end line only completes a row still `interrupted`: folding a file again, after a
 *    crash of whoever folded it, repeats and loses nothing.
 * 3. Torn tail. A gateway killed mid-write leaves at most the front of its last write, without its
 *    newline; recovery folds up to the last newline and drops the rest (with a warning). The lines so
 *    torn belong to a `begin` that never returned or to ends whose answer never left, so nothing
 *    acknowledged is in them. A write cut short while the gateway lives retires its file, so the next
 *    line never glues onto a partial one.
 * 4. Sparse preallocation (journal-file.ts). Files are presized with `ftruncate` and written at their
 *    offsets. This assumes only what POSIX gives: a range never written reads as NUL bytes (a
 *    filesystem without sparse files stores the zeros, which costs space, not correctness), and no line
 *    contains a NUL (JSON escapes it). Recovery treats a run of NULs as the end of what was written
 *    there, and reads on past it, since after a power cut a later page may be on disk and an earlier
 *    one not.
 * 5. One writer. Only the gateway whose pid names a file writes it; another process folds it only once
 *    that pid is gone (journal-recovery.ts), under the store's write lock. With a shared store
 *    (PostgreSQL) each gateway has its own home, and so its own journal: file names are unique.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../log/logger.js';
import { journalRef, type AuditEnd, type AuditStart, type NewAuditEntry } from './audit-entry.js';
import type { AuditRows, FoldedAuditRow } from '../store/store.js';
import { JournalFile } from './journal-file.js';
import { endLine, startLine } from './journal-lines.js';
import { foldJournals, journalDir, newJournalFileName } from './journal-recovery.js';

const FOLD_DELAY_MS = 50;
/** Ended calls waiting before a fold runs at once rather than on its timer. */
const FOLD_BATCH = 256;

/** A started call, as `begin` hands it back to `end`; `file` is null when its start line failed. */
export interface JournalTicket {
  file: JournalFile | null;
  seq: number;
  start: AuditStart;
}

export interface AuditJournalOptions {
  home: string;
  store: AuditRows;
  log: Logger;
}

interface EndedCall {
  ticket: JournalTicket;
  end: AuditEnd;
}

function rowOf({ ticket: { start }, end }: EndedCall): NewAuditEntry {
  return {
    ...start,
    origin: start.origin ?? end.origin,
    outcome: end.outcome,
    duration_ms: end.duration_ms,
    context: end.context ?? null,
  };
}

export class AuditJournal {
  private readonly dir: string;
  private current: JournalFile;
  /**
   * Files that take no more start lines (rotated, or a write failed) and still have calls open; a
   * rotated one stays open for their end lines.
   */
  private readonly retired = new Set<JournalFile>();
  /** Calls of the current file whose end line is not written yet (a microtask away, or a start line). */
  private unwritten: EndedCall[] = [];
  /** The same for calls of a retired file, whose end lines go to the file their start line is in. */
  private unwrittenElsewhere: EndedCall[] = [];
  private endsQueued = false;
  /** Resolves once the end lines now waiting are written, when that waits for `setImmediate`. */
  private pendingEnds: Promise<void> | null = null;
  private resolvePendingEnds: (() => void) | null = null;
  /** Calls begun and not ended: a call ending beside others shares the write of their ends. */
  private inFlight = 0;
  private ended: EndedCall[] = [];
  private timer: NodeJS.Timeout | null = null;
  /** The last fold failed: only its retry timer folds again, not every call that ends meanwhile. */
  private failing = false;
  private closed = false;
  /** The fold running, if any: the next one waits for it, so they never overlap. */
  private folding: Promise<void> | null = null;

  /** Folds the journals of gateways that are gone, then opens this gateway's own. */
  static async open(o: AuditJournalOptions): Promise<AuditJournal> {
    const dir = journalDir(o.home);
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    await foldJournals(o.store, dir, o.log);
    return new AuditJournal(o, dir);
  }

  private constructor(
    private readonly o: AuditJournalOptions,
    dir: string,
  ) {
    this.dir = dir;
    this.current = this.newFile();
  }

  /**
   * Journals a dispatched call: once this returns, the call survives the gateway being killed. A write
   * that fails is logged loudly, and the call is still logged (from memory) when it ends.
   */
  begin(start: AuditStart): JournalTicket {
    if (this.closed) return { file: null, seq: 0, start };
    this.inFlight++;
    if (this.current.closed || this.current.full) {
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
   * Records how a journaled call ended; its row reaches SQLite with the next fold. Its end line is
   * written before the caller's next reaction runs (a microtask), or once `endsWritten()` resolves.
   */
  end(ticket: JournalTicket, end: AuditEnd): void {
    // After close the store is gone: a call still open then is folded as interrupted at the next start.
    if (this.closed) return;
    const alone = this.inFlight <= 1;
    this.inFlight = Math.max(0, this.inFlight - 1);
    const call = { ticket, end };
    if (ticket.file && !ticket.file.closed) {
      (ticket.file === this.current ? this.unwritten : this.unwrittenElsewhere).push(call);
      this.queueEnds(alone);
    }
    this.ended.push(call);
    if (this.ended.length >= FOLD_BATCH && !this.failing) void this.flush();
    else this.timer ??= setTimeout(() => void this.flush(), FOLD_DELAY_MS);
  }

  /**
   * What the answer of a call just ended must wait for: a promise (never rejecting) when its end line
   * waits for `setImmediate`, nothing when it is written before the caller's next reaction runs.
   */
  endsWritten(): Promise<void> | undefined {
    return this.pendingEnds ?? undefined;
  }

  private queueEnds(alone: boolean): void {
    if (this.endsQueued) return;
    this.endsQueued = true;
    if (alone) {
      queueMicrotask(this.writeQueuedEnds);
      return;
    }
    this.pendingEnds = new Promise((resolve) => (this.resolvePendingEnds = resolve));
    setImmediate(this.writeQueuedEnds);
  }

  /**
   * Folds every call ended so far into the store (before a read of the log, and at close); resolves
   * once they are in, or once the fold failed (logged; its retry timer tries again). Never rejects.
   */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    // With no fold running it starts now: SQLite's transaction commits before this returns.
    const next = this.folding ? this.folding.then(() => this.fold()) : this.fold();
    const tracked: Promise<void> = next.finally(() => {
      if (this.folding === tracked) this.folding = null;
    });
    this.folding = tracked;
    return tracked;
  }

  private async fold(): Promise<void> {
    if (this.ended.length === 0) return;
    const batch = this.ended;
    this.ended = [];
    const folding = new Map<JournalFile, Set<number>>();
    for (const { ticket } of batch) {
      if (!ticket.file) continue;
      let seqs = folding.get(ticket.file);
      if (!seqs) folding.set(ticket.file, (seqs = new Set()));
      seqs.add(ticket.seq);
    }
    const rows: FoldedAuditRow[] = batch.map((call) => {
      const { file, seq } = call.ticket;
      return { entry: rowOf(call), journalRef: file ? journalRef(file.name, seq) : null };
    });
    const offsets = new Map<string, number>();
    for (const [file, seqs] of folding) offsets.set(file.name, file.foldedOffset(seqs));
    try {
      await this.o.store.fold(rows, offsets);
    } catch (error) {
      // The calls are safe in the journal; the next fold (or the next start) picks them up.
      this.o.log.warn('audit journal fold failed; will retry', { reason: (error as Error).message });
      this.ended = [...batch, ...this.ended];
      this.failing = true;
      if (!this.closed) {
        if (this.timer) clearTimeout(this.timer);
        this.timer = setTimeout(() => void this.flush(), FOLD_DELAY_MS * 20);
        this.timer.unref();
      }
      return;
    }
    this.failing = false;
    for (const [file, seqs] of folding) for (const seq of seqs) file.open.delete(seq);
    for (const file of [...this.retired]) if (file.open.size === 0) await this.remove(file);
  }

  /** Folds what has ended; the journal goes unless a call is still open in it. */
  async close(): Promise<void> {
    if (this.closed) return;
    await this.flush();
    this.writeEnds();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    for (const file of [this.current, ...this.retired]) {
      file.closeFd();
      if (file.open.size === 0) await this.remove(file);
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
    const resolve = this.resolvePendingEnds;
    this.pendingEnds = null;
    this.resolvePendingEnds = null;
    resolve?.();
  };

  private writeEnds(): void {
    if (this.unwritten.length > 0 && !this.current.closed) this.write(this.current, this.endLines());
    this.unwritten = [];
    if (this.unwrittenElsewhere.length > 0) this.writeEndsElsewhere();
  }

  /** Rare: a call that outlived its file's rotation. One write per file, as for the current one. */
  private writeEndsElsewhere(): void {
    const byFile = new Map<JournalFile, string>();
    for (const { ticket, end } of this.unwrittenElsewhere) {
      if (ticket.file) byFile.set(ticket.file, (byFile.get(ticket.file) ?? '') + endLine(ticket.seq, end));
    }
    this.unwrittenElsewhere = [];
    for (const [file, text] of byFile) if (!file.closed) this.write(file, text);
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
    this.current = this.newFile();
    if (old.open.size === 0) void this.remove(old);
    else this.retired.add(old);
  }

  private async remove(file: JournalFile): Promise<void> {
    file.closeFd();
    this.retired.delete(file);
    try {
      fs.rmSync(path.join(this.dir, file.name), { force: true });
    } catch (error) {
      // Its rows are in; the file and its folded offset stay for the next gateway, which skips them.
      this.o.log.warn('audit journal file could not be removed', { reason: (error as Error).message });
      return;
    }
    try {
      await this.o.store.forgetJournal(file.name);
    } catch (error) {
      // An offset row about no file: harmless, the next gateway's recovery never looks for it.
      this.o.log.warn('audit journal offset could not be forgotten', { reason: (error as Error).message });
    }
  }
}
