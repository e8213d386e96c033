/**
 * The picker without a terminal (piped input, CI): numbered rows, one answer per line. Secrets are read
 * the same way; nothing is echoed because nothing echoes on a pipe. The input ending aborts.
 */
import { createInterface, type Interface } from 'node:readline';
import type { PickerRow } from './picker-rows.js';
import { SetupAborted, questionText, rowStatus, type EnvQuestion, type SetupPrompter } from './prompter.js';

const MAX_TRIES = 5;

export class LinePrompter implements SetupPrompter {
  private readonly lines: AsyncIterator<string>;
  private readonly reader: Interface;

  constructor(
    input: NodeJS.ReadableStream,
    private readonly output: NodeJS.WritableStream,
  ) {
    this.reader = createInterface({ input, terminal: false });
    this.lines = this.reader[Symbol.asyncIterator]();
  }

  private async line(): Promise<string> {
    const next = await this.lines.next();
    if (next.done) throw new SetupAborted('input ended');
    return next.value.trim();
  }

  async choose(rows: PickerRow[], initial: number): Promise<number> {
    this.output.write('Browsers:\n');
    rows.forEach((row, index) => {
      const current = index === initial ? ' (current)' : '';
      this.output.write(
        `  ${index + 1}) ${row.label} — ${row.badge} — ${row.tag} [${rowStatus(row)}]${current}\n`,
      );
    });
    for (let tries = 0; tries < MAX_TRIES; tries++) {
      this.output.write(`Choose 1-${rows.length} [${initial + 1}]: `);
      const answer = await this.line();
      this.output.write('\n');
      if (answer === '') return initial;
      const choice = Number(answer);
      if (Number.isInteger(choice) && choice >= 1 && choice <= rows.length) return choice - 1;
      const byName = rows.findIndex((row) => row.id === answer.toLowerCase());
      if (byName >= 0) return byName;
      this.output.write(`"${answer}" is not one of 1-${rows.length}.\n`);
    }
    throw new SetupAborted('no valid choice');
  }

  async ask(question: EnvQuestion): Promise<string> {
    this.output.write(questionText(question));
    const answer = await this.line();
    this.output.write('\n');
    return answer;
  }

  close(): void {
    this.reader.close();
  }
}
