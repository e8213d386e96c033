/**
 * The picker in a terminal: raw mode, arrow keys (or j/k) move, Enter selects, Ctrl-C aborts before
 * anything is written. The list is redrawn in place on every key. Secrets are read with no echo at all.
 */
import type { PickerRow } from './picker-rows.js';
import { SetupAborted, questionText, rowStatus, type EnvQuestion, type SetupPrompter } from './prompter.js';

export interface TtyInput extends NodeJS.ReadableStream {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}

type Key = 'up' | 'down' | 'enter' | 'abort' | 'backspace' | { char: string };

/** Splits a raw chunk into keys; pasted text arrives as many characters in one chunk. */
function keysOf(chunk: string): Key[] {
  const keys: Key[] = [];
  for (let i = 0; i < chunk.length; i++) {
    const rest = chunk.slice(i);
    if (rest.startsWith('\x1b[A') || rest.startsWith('\x1bOA')) {
      keys.push('up');
      i += 2;
    } else if (rest.startsWith('\x1b[B') || rest.startsWith('\x1bOB')) {
      keys.push('down');
      i += 2;
    } else if (rest.startsWith('\x1b[') && rest.length >= 3) {
      i += 2; // other escape sequences (left/right) are ignored
    } else {
      const char = chunk[i] ?? '';
      if (char === '\r' || char === '\n') keys.push('enter');
      else if (char === '\x03' || char === '\x04') keys.push('abort');
      else if (char === '\x7f' || char === '\b') keys.push('backspace');
      else if (char >= ' ') keys.push({ char });
    }
  }
  return keys;
}

export class TtyPrompter implements SetupPrompter {
  private readonly queue: Key[] = [];
  private waiter: ((key: Key) => void) | null = null;
  private readonly onData = (chunk: Buffer | string) => {
    for (const key of keysOf(chunk.toString())) {
      const waiter = this.waiter;
      if (waiter) {
        this.waiter = null;
        waiter(key);
      } else this.queue.push(key);
    }
  };

  constructor(
    private readonly input: TtyInput,
    private readonly output: NodeJS.WritableStream,
  ) {
    input.setRawMode?.(true);
    input.on('data', this.onData);
    input.resume();
  }

  private nextKey(): Promise<Key> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => (this.waiter = resolve));
  }

  private render(rows: PickerRow[], cursor: number, currentId: string | undefined): string[] {
    const width = Math.max(...rows.map((row) => row.label.length));
    return rows.map((row, index) => {
      const pointer = index === cursor ? '\x1b[36m❯\x1b[0m' : ' ';
      const current = row.id === currentId ? ' (current)' : '';
      return `${pointer} ${row.label.padEnd(width)}  ${row.badge.padEnd(11)} ${row.tag}  [${rowStatus(row)}]${current}`;
    });
  }

  async choose(rows: PickerRow[], initial: number): Promise<number> {
    const currentId = rows[initial]?.id;
    let cursor = initial;
    this.output.write(
      'Choose the browser for sessions not bound to the extension (↑/↓, Enter; Ctrl-C cancels):\n',
    );
    let lines = this.render(rows, cursor, currentId);
    this.output.write(lines.join('\n') + '\n');
    for (;;) {
      const key = await this.nextKey();
      if (key === 'abort') throw new SetupAborted('cancelled');
      if (key === 'enter') return cursor;
      if (key === 'up' || (typeof key === 'object' && key.char === 'k'))
        cursor = (cursor - 1 + rows.length) % rows.length;
      else if (key === 'down' || (typeof key === 'object' && key.char === 'j'))
        cursor = (cursor + 1) % rows.length;
      else continue;
      // Back to the first row of the list, clear to the end, draw again.
      this.output.write(`\x1b[${lines.length}F\x1b[J`);
      lines = this.render(rows, cursor, currentId);
      this.output.write(lines.join('\n') + '\n');
    }
  }

  async ask(question: EnvQuestion): Promise<string> {
    this.output.write(questionText(question));
    let value = '';
    for (;;) {
      const key = await this.nextKey();
      if (key === 'abort') {
        this.output.write('\n');
        throw new SetupAborted('cancelled');
      }
      if (key === 'enter') {
        this.output.write('\n');
        return value.trim();
      }
      if (key === 'backspace') {
        if (value.length > 0 && !question.secret) this.output.write('\b \b');
        value = value.slice(0, -1);
      } else if (typeof key === 'object') {
        value += key.char;
        if (!question.secret) this.output.write(key.char);
      }
    }
  }

  close(): void {
    this.input.off('data', this.onData);
    this.input.setRawMode?.(false);
    this.input.pause();
  }
}
