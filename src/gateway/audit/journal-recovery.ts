/**
 * Folding the journal of a gateway that is gone (killed, crashed) into the audit table: every call it
 * started becomes a row, with the outcome its journal recorded or, when the end never reached the
 * file, as `interrupted`; then the file goes. Rows the gateway had folded itself are skipped by their
 * `journal_ref`, so folding again after a crash of the folder repeats nothing.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../log/logger.js';
import type { AuditRows, RecoveredChunk, RecoveredLine } from '../store/store.js';
import { INTERRUPTED, journalRef } from './audit-entry.js';
import { parseLine } from './journal-lines.js';

const AUDIT_JOURNAL_DIR = 'audit-journal';
/** `<pid>-<16 hex>.jsonl`: the pid says whether its gateway still runs. */
const JOURNAL_FILE_PATTERN = /^(\d+)-[0-9a-f]{16}\.jsonl$/;
/** Bytes read per transaction, so a long journal never holds the store's write lock for long. */
const READ_CHUNK = 4 << 20;

export function journalDir(home: string): string {
  return path.join(home, AUDIT_JOURNAL_DIR);
}

/** A fresh journal file name for this process, of the shape recovery looks for. */
export function newJournalFileName(): string {
  return `${process.pid}-${randomBytes(8).toString('hex')}.jsonl`;
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

/** Folds what a gone gateway's journal file holds past its folded offset. */
export async function foldJournalFile(store: AuditRows, file: string, log: Logger): Promise<void> {
  const name = path.basename(file);
  let fd: number;
  try {
    fd = fs.openSync(file, 'r');
  } catch (error) {
    // Listed, then removed: a file goes only once its rows are in (here, by another gateway starting
    // in this home, or by its own gateway's fold), so there is nothing left to fold.
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  let skipped = 0;
  let torn = 0;
  // Runs inside the store's transaction, once it holds the lock: the offset it gets is current.
  const readFrom = (offset: number): RecoveredChunk | null => {
    const want = Math.min(fs.fstatSync(fd).size - offset, READ_CHUNK);
    if (want <= 0) return null;
    const buffer = Buffer.allocUnsafe(want);
    const read = fs.readSync(fd, buffer, 0, want, offset);
    const end = buffer.lastIndexOf(0x0a, read - 1);
    if (end === -1) return null;
    const lines: RecoveredLine[] = [];
    for (const text of buffer.toString('utf8', 0, end).split('\n')) {
      const line = parseLine(afterNul(text));
      if (!line) skipped += 1;
      else if (line.kind === 'start')
        lines.push({
          kind: 'start',
          entry: { ...line.start, outcome: INTERRUPTED, duration_ms: 0, context: null },
          journalRef: journalRef(name, line.seq),
        });
      else
        lines.push({
          kind: 'end',
          journalRef: journalRef(name, line.seq),
          outcome: line.outcome,
          duration_ms: line.duration_ms,
          origin: line.origin,
          context: line.context,
        });
    }
    return { lines, folded: offset + end + 1, more: read === READ_CHUNK };
  };
  try {
    while (await store.recover(name, readFrom)) {
      // Another chunk.
    }
    torn = bytesPastLines(fd, await store.journalOffset(name));
  } finally {
    fs.closeSync(fd);
  }
  if (skipped > 0) log.warn('audit journal lines unreadable, skipped', { file: name, skipped });
  if (torn > 0) log.warn('audit journal ends in a torn line; dropped', { file: name, bytes: torn });
}

/**
 * A line without the NUL bytes before it. Files are presized with NULs (audit-journal.ts), and a
 * machine that lost power may have kept a later page of lines but not an earlier one: the lines after
 * such a hole still count.
 */
function afterNul(text: string): string {
  const nul = text.lastIndexOf('\0');
  return nul === -1 ? text : text.slice(nul + 1);
}

/** Bytes after the last whole line that are not the NUL padding: a line torn by the gateway's death. */
function bytesPastLines(fd: number, offset: number): number {
  const tail = Buffer.alloc(Math.max(0, Math.min(fs.fstatSync(fd).size - offset, READ_CHUNK)));
  const read = fs.readSync(fd, tail, 0, tail.length, offset);
  let bytes = 0;
  for (let i = 0; i < read; i++) if (tail[i] !== 0) bytes += 1;
  return bytes;
}

/**
 * Folds and deletes the journal of every gateway that is gone; a running gateway's journal is its own.
 * A file goes before its offset row: a crash between leaves a row about no file, never a file whose
 * fold would start over. `running` says whether a pid's gateway still runs (tests, whose killed
 * journals were written by their own pid, say which are gone).
 */
export async function foldJournals(
  store: AuditRows,
  dir: string,
  log: Logger,
  running: (pid: number) => boolean = processAlive,
): Promise<void> {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  for (const name of names) {
    const match = JOURNAL_FILE_PATTERN.exec(name);
    if (!match || running(Number(match[1]))) continue;
    const file = path.join(dir, name);
    await foldJournalFile(store, file, log);
    fs.rmSync(file, { force: true });
    await store.forgetJournal(name);
  }
}
