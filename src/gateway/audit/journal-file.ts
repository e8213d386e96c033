/**
 * One audit journal file as its gateway writes it: lines appended at their offset in a file presized
 * with NUL bytes, and the calls started in it that have not been folded yet. Only the gateway whose pid
 * names the file writes it (journal-recovery.ts reads it once that gateway is gone).
 */
import fs from 'node:fs';
import path from 'node:path';

/** Past this size the journal moves to a fresh file; the old one goes once its calls are folded. */
export const ROTATE_BYTES = 1 << 20;
/**
 * A file is made this long (sparse) when it is opened, and lines are written at their offset: a write
 * that grows a file makes ext4 journal the new size, which cost about as much again as the write itself.
 * Past the written lines the file reads as NUL bytes, which no line contains (recovery stops there).
 */
const PRESIZED_BYTES = ROTATE_BYTES + (64 << 10);

export class JournalFile {
  fd: number;
  /** Bytes of lines written: where the next line goes. */
  size = 0;
  /** The file's length on disk, NUL bytes past `size`. */
  private capacity = 0;
  seq = 0;
  /** Started, not folded: seq → where its start line's write began. */
  readonly open = new Map<number, number>();

  constructor(
    readonly name: string,
    dir: string,
  ) {
    // Not 'a': Linux ignores the offset of a write to a file opened for appending, which would put
    // every line after the padding, and the truncation at close would then cut them all off.
    this.fd = fs.openSync(path.join(dir, name), 'wx', 0o600);
    this.reserve(PRESIZED_BYTES);
  }

  /** Written no more: closed, or a write to it failed. */
  get closed(): boolean {
    return this.fd === -1;
  }

  /** Time to move to a fresh file. */
  get full(): boolean {
    return this.size >= ROTATE_BYTES;
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
