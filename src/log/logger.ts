/**
 * One line per event on stderr, `level message key=value …`. Callers pass fields, never secrets: keys,
 * tickets, tokens and typed text must not reach a log line.
 */
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
  const text = String(value);
  return /^[\w.:/@-]*$/.test(text) && text.length > 0 ? text : JSON.stringify(text);
}

export function createLogger(options: { level?: LogLevel; write?: (line: string) => void } = {}): Logger {
  const threshold = ORDER[options.level ?? 'info'];
  const write = options.write ?? ((line: string) => process.stderr.write(line + '\n'));
  const emit = (level: LogLevel, message: string, fields?: LogFields) => {
    if (ORDER[level] < threshold) return;
    let line = `${new Date().toISOString()} ${level.padEnd(5)} ${message}`;
    for (const [key, value] of Object.entries(fields ?? {})) {
      if (value !== undefined) line += ` ${key}=${formatValue(value)}`;
    }
    write(line);
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
