/**
 * One line per event on stderr, `level message key=value …`. Callers pass fields, never secrets: keys,
 * tickets, tokens and typed text must not reach a log line. Debug and info lines of one event-loop
 * turn go out in one write (line-batch.ts); a warning or an error is written at once, with what waited.
 */
import { LineBatch } from './line-batch.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
}

const ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

function formatValue(value: string | number | boolean | null): string {
  // A number, a boolean or null always prints bare: the pattern would pass it anyway.
  if (typeof value !== 'string') return String(value);
  return /^[\w.:/@-]*$/.test(value) && value.length > 0 ? value : JSON.stringify(value);
}

/** The last line's time: a busy gateway logs many lines in one millisecond. */
let stampedAt = NaN;
let stamp = '';

function timestamp(): string {
  const now = Date.now();
  if (now !== stampedAt) {
    stampedAt = now;
    stamp = new Date(now).toISOString();
  }
  return stamp;
}

export interface LoggerOptions {
  level?: LogLevel;
  /** Takes each line as it is logged (tests that read the lines); batching is then the writer's. */
  write?: (line: string) => void;
  /** Takes newline-ended lines, those of one turn together; stderr when neither this nor `write`. */
  output?: (text: string) => void;
}

function lineWriter(options: LoggerOptions): (line: string, urgent: boolean) => void {
  if (options.write) return options.write;
  const batch = new LineBatch(options.output ?? ((text) => process.stderr.write(text)));
  return (line, urgent) => {
    batch.add(line);
    if (urgent) batch.flush();
  };
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const threshold = ORDER[options.level ?? 'info'];
  const write = lineWriter(options);
  const emit = (level: LogLevel, message: string, fields?: LogFields) => {
    if (ORDER[level] < threshold) return;
    let line = `${timestamp()} ${level.padEnd(5)} ${message}`;
    for (const key in fields) {
      const value = fields[key];
      if (value !== undefined) line += ` ${key}=${formatValue(value)}`;
    }
    write(line, ORDER[level] >= ORDER.warn);
  };
  return {
    debug: (message, fields) => emit('debug', message, fields),
    info: (message, fields) => emit('info', message, fields),
    warn: (message, fields) => emit('warn', message, fields),
    error: (message, fields) => emit('error', message, fields),
  };
}

/** For tests and embedders that want silence. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
