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
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `tabgate ARGS` on `home`; `stdin` is written to its input, which is then closed. */
export function runTabgate(home: string, args: string[], stdin = ''): Promise<CliResult> {
  const { API_SERVER_KEY: _key, ...env } = process.env;
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [...cliEntry(), ...args],
      { cwd: root, env: { ...env, TABGATE_HOME: home }, encoding: 'utf8' },
      (error, stdout, stderr) => resolve({ code: error ? 1 : 0, stdout, stderr }),
    );
    child.stdin?.end(stdin);
  });
}
