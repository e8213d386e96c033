/**
 * The audit log's write-ahead journal. An answered call must be in the log even if the gateway is
 * killed the next instant, but a committed SQLite insert costs ~15 syscalls (WAL frames, locks, and
 * now and then a checkpoint's fsync) on the path of every answer. So each row is first appended as one
 * JSON line to a journal file of this gateway's own (one `write`, durable against `kill -9` like a
 * WAL commit with `synchronous=NORMAL`), and folded into SQLite in batches shortly after.
 *
 * Folding is exactly once across processes: the folded byte offset of every journal file lives in the
 * same SQLite transaction as the rows it folded, so a crash between the two repeats nothing, and two
 * gateways (or a gateway and `tabgate audit`) folding the same file take turns on SQLite's write lock.
 * A journal whose gateway is gone is folded by whoever opens the log next, then deleted.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../log/logger.js';
import type { AuditStore, NewAuditEntry } from './audit-store.js';

export const AUDIT_JOURNAL_DIR = 'audit-journal';
const FOLD_DELAY_MS = 50;
/** Rows waiting before a fold runs at once rather than on its timer. */
const FOLD_BATCH = 256;
/** A fully folded journal past this size is replaced by a fresh one. */
const ROTATE_BYTES = 1 << 20;
/** Bytes read per fold transaction, so a long backlog never holds SQLite's write lock for long. */
const READ_CHUNK = 4 << 20;
const FILE_PATTERN = /^(\d+)-[0-9a-f]{16}\.jsonl$/;

export function journalDir(home: string): string {
  return path.join(home, AUDIT_JOURNAL_DIR);
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const NUMERIC = ['at_ms', 'duration_ms'] as const;
const TEXT = ['session_id', 'principal_id', 'backend', 'action', 'outcome'] as const;
const OPTIONAL_TEXT = ['controller_id', 'origin', 'tool_call_id'] as const;

/** A journal line back into a row; null for anything that is not one (a torn or foreign line). */
function parseLine(line: string): NewAuditEntry | null {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const row = value as Record<string, unknown>;
  if (!NUMERIC.every((k) => typeof row[k] === 'number')) return null;
  if (!TEXT.every((k) => typeof row[k] === 'string')) return null;
  if (!OPTIONAL_TEXT.every((k) => row[k] === null || typeof row[k] === 'string')) return null;
  if (typeof row.arguments !== 'object' || row.arguments === null) return null;
  return row as unknown as NewAuditEntry;
}

/**
 * Folds the complete lines of one journal file that no one has folded yet; returns how many bytes of
 * the file are folded now. A line that does not parse is skipped with a warning, never retried.
 */
export function foldJournalFile(store: AuditStore, file: string, log: Logger): number {
  const name = path.basename(file);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
  try {
    for (;;) {
      const folded = store.transaction(() => {
        const offset = store.journalOffset(name);
        const want = Math.min(fs.fstatSync(fd).size - offset, READ_CHUNK);
        if (want <= 0) return { offset, more: false };
        const buffer = Buffer.allocUnsafe(want);
        const read = fs.readSync(fd, buffer, 0, want, offset);
        const end = buffer.lastIndexOf(0x0a, read - 1);
        if (read === 0 || end === -1) return { offset, more: false };
        let skipped = 0;
        for (const line of buffer.toString('utf8', 0, end).split('\n')) {
          const entry = parseLine(line);
          if (entry) store.append(entry);
          else skipped += 1;
        }
        if (skipped > 0) log.warn('audit journal lines unreadable, skipped', { file: name, skipped });
        store.setJournalOffset(name, offset + end + 1);
        return { offset: offset + end + 1, more: read === READ_CHUNK };
      });
      if (!folded.more) return folded.offset;
    }
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Folds every journal in the folder, and deletes those whose gateway has exited (a live gateway's
 * journal is folded but left to it). `keep` names a file never to delete: the caller's own.
 */
export function foldJournals(store: AuditStore, dir: string, log: Logger, keep?: string): void {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const name of names) {
    const match = FILE_PATTERN.exec(name);
    if (!match) continue;
    const file = path.join(dir, name);
    foldJournalFile(store, file, log);
    if (name === keep || processAlive(Number(match[1]))) continue;
    const size = fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
    if (size > store.journalOffset(name)) {
      log.warn('audit journal ends in a torn line; dropped', { file: name, bytes: size });
    }
    // The file goes before its offset row: a crash between leaves a row about no file, never a file
    // without its row (which would be folded twice).
    fs.rmSync(file, { force: true });
    store.forgetJournal(name);
  }
}

export interface AuditJournalOptions {
  home: string;
  store: AuditStore;
  log: Logger;
}

/** This gateway's journal: append before answering, fold into SQLite soon after. */
export class AuditJournal {
  private readonly dir: string;
  private name = '';
  private fd = -1;
  private size = 0;
  private pending = 0;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(private readonly o: AuditJournalOptions) {
    this.dir = journalDir(o.home);
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    foldJournals(o.store, this.dir, o.log);
    this.open();
  }

  /** Appends a row; once this returns, the row survives the gateway being killed. */
  append(entry: NewAuditEntry): void {
    if (this.closed) throw new Error('the audit journal is closed');
    if (this.fd === -1) this.open();
    const line = Buffer.from(JSON.stringify(entry) + '\n', 'utf8');
    let written: number;
    try {
      written = fs.writeSync(this.fd, line);
    } catch (error) {
      this.abandon();
      throw error;
    }
    this.size += written;
    if (written !== line.length) {
      // A partial line (disk full) must not glue onto the next one: start a new file.
      this.abandon();
      throw new Error(`audit journal write was cut short (${written} of ${line.length} bytes)`);
    }
    this.pending += 1;
    if (this.pending >= FOLD_BATCH) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FOLD_DELAY_MS);
  }

  /** Folds every appended row into SQLite now (before a read of the log, and at close). */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending === 0 || this.fd === -1) return;
    try {
      const folded = foldJournalFile(this.o.store, path.join(this.dir, this.name), this.o.log);
      this.pending = 0;
      if (folded >= this.size && this.size >= ROTATE_BYTES) this.rotate();
    } catch (error) {
      // The rows are safe in the journal; the next fold (or the next start) picks them up.
      this.o.log.warn('audit journal fold failed; will retry', { reason: (error as Error).message });
      this.timer = setTimeout(() => this.flush(), FOLD_DELAY_MS * 20);
      this.timer.unref();
    }
  }

  /** Folds what is left and removes the journal. */
  close(): void {
    if (this.closed) return;
    this.flush();
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    if (this.fd === -1) return;
    fs.closeSync(this.fd);
    this.fd = -1;
    if (this.pending === 0) this.remove(this.name);
  }

  private open(): void {
    this.name = `${process.pid}-${randomBytes(8).toString('hex')}.jsonl`;
    this.fd = fs.openSync(path.join(this.dir, this.name), 'ax', 0o600);
    this.size = 0;
  }

  private rotate(): void {
    const old = this.name;
    fs.closeSync(this.fd);
    this.open();
    this.remove(old);
  }

  /**
   * Stops writing to the current file after a failed write and folds its whole lines; a torn tail
   * keeps the file until a later start, which folds what it can and deletes it.
   */
  private abandon(): void {
    try {
      fs.closeSync(this.fd);
    } catch {
      // Already unusable.
    }
    this.fd = -1;
    try {
      foldJournalFile(this.o.store, path.join(this.dir, this.name), this.o.log);
      this.pending = 0;
    } catch (error) {
      this.o.log.warn('audit journal fold failed; the next start retries', {
        reason: (error as Error).message,
      });
    }
  }

  private remove(name: string): void {
    fs.rmSync(path.join(this.dir, name), { force: true });
    this.o.store.forgetJournal(name);
  }
}
