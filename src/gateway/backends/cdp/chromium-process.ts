/**
 * Launching Debian's Chromium ourselves (FEASIBILITY.md §1): our own flags, a fresh profile, its own
 * process group so one signal ends every child, and the DevTools endpoint read from stderr. A last-resort
 * `exit` hook kills the group even when nobody called `kill()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TabgateError } from '../../../protocol/index.js';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/** Needed on this closed-network machine kind, else Chromium stalls or runs at 780×437. */
export const BASE_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--window-size=1280,800',
];

export interface LaunchOptions {
  executablePath: string | undefined;
  headed: boolean;
  extraArgs: readonly string[];
  timeoutMs?: number;
}

export interface ChromiumProcess {
  wsEndpoint: string;
  userDataDir: string;
  pid: number;
  onExit(listener: () => void): void;
  kill(): Promise<void>;
}

export async function launchChromium(options: LaunchOptions): Promise<ChromiumProcess> {
  const binary = options.executablePath ?? DEFAULT_CHROMIUM;
  if (!fs.existsSync(binary)) {
    throw new TabgateError(
      'browser_not_found',
      `No Chromium at ${binary}. Install it (sudo apt-get install chromium), or point CHROME_PATH or browser.executable_path at a Chromium or Chrome binary.`,
    );
  }
  const userDataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tabgate-chromium-'));
  const args = [
    ...(options.headed ? [] : ['--headless']),
    ...BASE_FLAGS,
    `--user-data-dir=${userDataDir}`,
    '--remote-debugging-port=0',
    ...options.extraArgs,
    'about:blank',
  ];
  const child = spawn(binary, args, { stdio: ['ignore', 'ignore', 'pipe'], detached: true });
  const removeProfile = () =>
    fs.rmSync(userDataDir, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 });
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      // Already gone.
    }
  };
  const lastResort = () => {
    killGroup('SIGKILL');
    try {
      removeProfile();
    } catch {
      // The exit path must not throw.
    }
  };
  process.on('exit', lastResort);

  let wsEndpoint: string;
  try {
    wsEndpoint = await readEndpoint(child, options.timeoutMs ?? 30_000);
  } catch (error) {
    lastResort();
    process.off('exit', lastResort);
    throw error;
  }
  child.stderr?.resume();
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  void exited.then(() => process.off('exit', lastResort));

  return {
    wsEndpoint,
    userDataDir,
    pid: child.pid ?? 0,
    onExit: (listener) => void exited.then(listener),
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        killGroup('SIGTERM');
        const timer = setTimeout(() => killGroup('SIGKILL'), 3000);
        await exited;
        clearTimeout(timer);
      }
      killGroup('SIGKILL'); // helpers that outlived the browser process
      process.off('exit', lastResort);
      try {
        removeProfile();
      } catch {
        // Best effort: a locked file must not fail shutdown.
      }
    },
  };
}

function readEndpoint(child: ChildProcess, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    const cleanup = () => {
      clearTimeout(timer);
      child.off('error', onError);
      child.off('exit', onExit);
      child.stderr?.off('data', onData);
    };
    const fail = (message: string) => {
      cleanup();
      reject(new TabgateError('browser_not_found', `${message}. Last output: ${stderr.slice(-500).trim()}`));
    };
    const onError = (error: Error) => fail(`Chromium could not be started (${error.message})`);
    const onExit = (code: number | null) => fail(`Chromium exited at start (code ${code})`);
    const onData = (chunk: Buffer) => {
      stderr += chunk.toString('utf8');
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (!match?.[1]) return;
      cleanup();
      resolve(match[1]);
    };
    const timer = setTimeout(() => fail(`Chromium did not start within ${timeoutMs / 1000} s`), timeoutMs);
    child.once('error', onError);
    child.once('exit', onExit);
    child.stderr?.on('data', onData);
  });
}
