/**
 * Finding the Chromium processes a test started, by a marker flag on their command line (Chromium
 * ignores flags it does not know), so tests never touch other engineers' browsers.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import fs from 'node:fs';
import type { Readable } from 'node:stream';
import { descendants } from '../helpers/processes.js';
import { waitFor } from '../helpers/wait-for.js';

export function chromiumPidsWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmdline.includes(marker)) pids.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return pids;
}

/** The processes the marker names and every process below them (renderers, GPU, utilities). */
export function chromiumTree(marker: string): number[] {
  const tree = new Set<number>();
  for (const pid of chromiumPidsWith(marker)) {
    // Helpers that repeat the browser's flags are below it already: /proc is walked once per browser.
    if (tree.has(pid)) continue;
    for (const each of [pid, ...descendants(pid)]) tree.add(each);
  }
  return [...tree];
}

/** Kills the browser process (not its helpers) like a crash would, and waits until it is gone. */
export async function killChromiumByMarker(marker: string): Promise<void> {
  const main = chromiumPidsWith(marker).filter((pid) => {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    return !cmdline.includes('--type=');
  });
  for (const pid of main) process.kill(pid, 'SIGKILL');
  await waitFor(() => !main.some((pid) => fs.existsSync(`/proc/${pid}`) && !isZombie(pid)), {
    what: 'the killed browser process to be gone',
    every: 20,
  });
}

function isZombie(pid: number): boolean {
  try {
    return /\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return true;
  }
}

export interface ExitChild {
  child: ChildProcessByStdio<null, Readable, null>;
  /** It printed READY: its local browser, marked `marker`, has browsed the page. */
  ready: Promise<void>;
  exited: Promise<void>;
}

/**
 * A gateway's local backend in a process of its own (exit-child.ts), for the tests of what is left
 * behind when that process ends: `signal`, it then waits for one; `exit`, it exits at once unclosed.
 */
export function startExitChild(marker: string, url: string, mode: 'signal' | 'exit'): ExitChild {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/engine/exit-child.ts', marker, url, mode], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('READY') && resolve());
    child.once('exit', () => reject(new Error('the child exited before it was ready')));
  });
  return { child, ready, exited };
}
