/**
 * Launching Debian's Chromium ourselves: our own flags, a fresh profile, its own
 * process group so one signal ends every child, and CDP over `--remote-debugging-pipe` rather than a
 * port: no other local process can attach to it, and Chromium exits on its own when the pipe closes,
 * even if the gateway is killed with SIGKILL. A last-resort `exit` hook kills the group as well.
 *
 * The browser gets an allowlisted environment with a private HOME (chromium-environment.ts), and its
 * sandbox whenever the machine allows it (chromium-sandbox.ts). Its profile and HOME live in one
 * 0700 folder of its own, removed when it ends, with the folder Chromium made for its singleton socket
 * (chromium-profile.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import fs from 'node:fs';
import { TabgateError } from '../../../protocol/index.js';
import { chromiumEnvironment, type SourceEnvironment } from './chromium-environment.js';
import {
  makeBrowserFolders,
  removeAbandonedBrowserFolders,
  removeChromiumFolders,
} from './chromium-profile.js';
import { sandboxFor, type SandboxDecision } from './chromium-sandbox.js';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

/**
 * Needed on this closed-network machine kind, else Chromium stalls or runs at 780×437. `--no-sandbox`
 * is added only when the sandbox cannot work (chromium-sandbox.ts).
 */
export const BASE_FLAGS = [
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--no-default-browser-check',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--window-size=1280,800',
];

/**
 * Features a driven browser has no use for, turned off. Each window (every session's browser context
 * opens one) preloads Chromium's WebUI address-bar popup in a renderer process of its own, for a popup
 * no one sees: with it a session opened cost 2.5 s of CPU and 61 MB, without it 0.66 s and 23 MB
 * (`npm run bench:sessions`, Chromium 156). Unknown names are ignored, so any Chromium takes the list.
 */
export const DISABLED_FEATURES: readonly string[] = [
  'WebUIOmniboxPopup',
  'WebUIOmniboxFullPopup',
  'WebUIOmniboxAimPopup',
];

const DISABLE_FEATURES = '--disable-features=';
const ENABLE_FEATURES = '--enable-features=';

/** The feature names every `prefix` switch among `args` lists (a name may carry `:params` or `<trial`). */
function featuresOf(args: readonly string[], prefix: string): string[] {
  return args
    .filter((arg) => arg.startsWith(prefix))
    .flatMap((arg) => arg.slice(prefix.length).split(','))
    .filter((name) => name !== '');
}

/**
 * The command line's switches with our disabled features added: every `--disable-features` given
 * (the user's, in `browser.chromium_args`) is merged with them into one, since Chromium keeps only the
 * last of a repeated switch and would otherwise drop either theirs or ours. A feature the user enables
 * is left out of ours: Chromium would disable one named in both.
 */
export function withDisabledFeatures(args: readonly string[]): string[] {
  const enabled = new Set(featuresOf(args, ENABLE_FEATURES).map((name) => name.split(/[:<]/)[0]));
  const features = new Set([
    ...DISABLED_FEATURES.filter((name) => !enabled.has(name)),
    ...featuresOf(args, DISABLE_FEATURES),
  ]);
  const rest = args.filter((arg) => !arg.startsWith(DISABLE_FEATURES));
  return features.size === 0 ? rest : [...rest, DISABLE_FEATURES + [...features].join(',')];
}

export interface LaunchOptions {
  executablePath: string | undefined;
  headed: boolean;
  extraArgs: readonly string[];
  /** The gateway's environment; only its allowlisted part reaches Chromium. Default: none of it. */
  environment?: SourceEnvironment;
  /** Default: what the probe decides for this binary. */
  sandbox?: SandboxDecision;
  timeoutMs?: number;
}

export interface ChromiumProcess {
  /** CDP in: what we write reaches the browser (its fd 3). */
  toBrowser: Writable;
  /** CDP out: what the browser writes (its fd 4). */
  fromBrowser: Readable;
  userDataDir: string;
  /** How many browser folders of gateways killed earlier this launch removed (chromium-profile.ts). */
  removedAbandoned: number;
  sandbox: SandboxDecision;
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
  const sandbox = options.sandbox ?? sandboxFor(binary);
  // What a gateway killed earlier left behind goes first (a launch is rare: a start, a crashed browser).
  const removedAbandoned = removeAbandonedBrowserFolders();
  const { scratch, userDataDir, home } = makeBrowserFolders();
  const args = [
    ...withDisabledFeatures([
      ...(options.headed ? [] : ['--headless']),
      ...(sandbox.sandboxed ? [] : ['--no-sandbox']),
      ...BASE_FLAGS,
      `--user-data-dir=${userDataDir}`,
      '--remote-debugging-pipe',
      ...options.extraArgs,
    ]),
    'about:blank',
  ];
  const child = spawn(binary, args, {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'],
    detached: true,
    env: chromiumEnvironment(options.environment ?? {}, { home, headed: options.headed }),
  });
  const removeProfile = () => removeChromiumFolders(scratch, userDataDir);
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

  const toBrowser = child.stdio[3] as Writable;
  const fromBrowser = child.stdio[4] as Readable;
  try {
    await waitForStart(child, toBrowser, fromBrowser, options.timeoutMs ?? 30_000);
  } catch (error) {
    lastResort();
    process.off('exit', lastResort);
    throw error;
  }
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  void exited.then(() => process.off('exit', lastResort));

  return {
    toBrowser,
    fromBrowser,
    userDataDir,
    removedAbandoned,
    sandbox,
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

/**
 * Started means the browser answers a first CDP command on the pipe. The probe's own id is outside the
 * range a CdpConnection uses, and its reply is read here, before the connection attaches its reader.
 */
const PROBE_ID = 2_000_000_000;

function waitForStart(child: ChildProcess, toBrowser: Writable, fromBrowser: Readable, timeoutMs: number) {
  return new Promise<void>((resolve, reject) => {
    let stderr = '';
    let stdout = '';
    const cleanup = () => {
      clearTimeout(timer);
      child.off('error', onError);
      child.off('exit', onExit);
      child.stderr?.off('data', onStderr);
      fromBrowser.off('data', onData);
      // Keep draining stderr so a chatty browser never blocks on a full pipe.
      child.stderr?.resume();
    };
    const fail = (message: string) => {
      cleanup();
      const hint = stderr.includes('No usable sandbox')
        ? ' `tabgate doctor` says why the sandbox was expected to work; browser.chromium_args: [--no-sandbox] runs Chromium without it.'
        : '';
      reject(
        new TabgateError('browser_not_found', `${message}.${hint} Last output: ${stderr.slice(-500).trim()}`),
      );
    };
    const onError = (error: Error) => fail(`Chromium could not be started (${error.message})`);
    const onExit = (code: number | null) => fail(`Chromium exited at start (code ${code})`);
    const onStderr = (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-4000);
    };
    const onData = (chunk: Buffer) => {
      stdout += chunk.toString('utf8');
      if (!stdout.includes(`"id":${PROBE_ID}`) || !stdout.includes('\0')) return;
      fromBrowser.pause();
      cleanup();
      resolve();
    };
    const timer = setTimeout(() => fail(`Chromium did not start within ${timeoutMs / 1000} s`), timeoutMs);
    child.once('error', onError);
    child.once('exit', onExit);
    child.stderr?.on('data', onStderr);
    fromBrowser.on('data', onData);
    toBrowser.on('error', () => undefined);
    toBrowser.write(JSON.stringify({ id: PROBE_ID, method: 'Browser.getVersion' }) + '\0');
  });
}
