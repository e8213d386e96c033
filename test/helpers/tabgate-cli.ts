/**
 * The tabgate CLI in a child process, as a person runs it: `TABGATE_HOME` set to a test home, no API key
 * in the environment (the CLI reads the home's key files). Always async: a test process that also serves
 * the gateway the CLI talks to would deadlock on spawnSync.
 */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cliEntry } from './cli-entry.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export interface CliResult {
  /** The exit code; -1 when the CLI was killed by a signal or could not start. */
  code: number;
  stdout: string;
  stderr: string;
}

// execFile's error carries the exit code as a number, or a string for a process that never ran.
function exitCode(error: { code?: unknown } | null): number {
  if (!error) return 0;
  return typeof error.code === 'number' ? error.code : -1;
}

/** Runs `tabgate ARGS` on `home`; `stdin` is written to its input, which is then closed. */
export function runTabgate(home: string, args: string[], stdin = ''): Promise<CliResult> {
  const { API_SERVER_KEY: _key, ...env } = process.env;
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...cliEntry(), ...args],
      { cwd: root, env: { ...env, TABGATE_HOME: home }, encoding: 'utf8' },
      (error, stdout, stderr) => resolve({ code: exitCode(error), stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}
