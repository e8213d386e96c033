/**
 * Log lines of one event-loop turn written together: at 32 concurrent calls a busy gateway logs a
 * request line per call, and one `write` per line was the gateway's only syscall per call that the
 * floor does not make (bench:controller, 1 controller: ~5,000 writes per 5,000 calls before, a few
 * hundred after). Lines wait at most until the end of the turn; the process's `exit` (also emitted on
 * an uncaught exception) writes whatever still waits, so no line is lost when the gateway stops.
 */

/** Batches that hold lines now; the exit hook writes them out. */
const waiting = new Set<LineBatch>();
let exitHooked = false;

function flushAllAtExit(): void {
  for (const batch of [...waiting]) {
    try {
      batch.flush();
    } catch {
      // The output is already closed: nothing is left to write these lines to.
    }
  }
}

export class LineBatch {
  private text = '';
  private scheduled = false;

  constructor(private readonly output: (text: string) => void) {}

  /** Queues one line; it is written at the end of this turn, or at once by `flush`. */
  add(line: string): void {
    this.text += line + '\n';
    if (this.scheduled) return;
    this.scheduled = true;
    waiting.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.on('exit', flushAllAtExit);
    }
    setImmediate(() => this.flush());
  }

  /** Writes every queued line now, in order. */
  flush(): void {
    waiting.delete(this);
    this.scheduled = false;
    if (this.text === '') return;
    const text = this.text;
    this.text = '';
    this.output(text);
  }
}
