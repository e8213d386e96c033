/** What the setup flow asks a person, independent of whether a terminal, a pipe or flags answer. */
import type { PickerRow } from './picker-rows.js';

export interface EnvQuestion {
  key: string;
  prompt: string;
  url?: string;
  secret: boolean;
  /** A value exists already; an empty answer keeps it. */
  hasValue: boolean;
}

export interface SetupPrompter {
  /** The index of the chosen row. */
  choose(rows: PickerRow[], initial: number): Promise<number>;
  /** The typed value; '' keeps an existing value (or leaves the variable unset). */
  ask(question: EnvQuestion): Promise<string>;
  close(): void;
}

/** Ctrl-C, or the input ended: nothing is written. */
export class SetupAborted extends Error {
  override readonly name = 'SetupAborted';
}

export function rowStatus(row: PickerRow): string {
  if (row.available) return 'ready';
  const keys = row.envVars.map((v) => v.key);
  return keys.length > 0 ? `needs ${keys.join(', ')}` : 'not available';
}

export function questionText(question: EnvQuestion): string {
  const where = question.url ? ` (${question.url})` : '';
  const keep = question.hasValue ? ' [set; Enter keeps it]' : '';
  return `${question.prompt} ${question.key}${where}${keep}: `;
}
