/**
 * The one way a test (or a benchmark) starts a Chromium of its own: Debian's binary (or CHROME_PATH),
 * headless, with the product's own flags (`BASE_FLAGS` and `withDisabledFeatures` of
 * chromium-process.ts, one list for both), a fresh profile, and its own process group so `kill()` takes
 * every helper with it. Two forms:
 *
 * - `launchChromium` spawns it with a CDP endpoint on a free port: the remote browser a provider hands
 *   back, or, with `extension`, a browser with the unpacked tabgate extension loaded.
 * - `launchPlaywrightChromium` hands it to playwright-core, for tests that drive a page as a person does
 *   (the dashboard).
 *
 * Unlike the product's launcher it never probes the sandbox: tests run it with `--no-sandbox`, as the
 * CI container requires. The gateway's own local browser is still started by the product's launcher.
 */
import { spawn } from 'node:child_process';
import { chromium as playwrightChromium, type Browser } from 'playwright-core';
import {
  BASE_FLAGS,
  DEFAULT_CHROMIUM,
  withDisabledFeatures,
} from '../../src/gateway/backends/cdp/chromium-process.js';
import { removeChromiumFolders } from '../../src/gateway/backends/cdp/chromium-profile.js';
import { tempDir } from './temp-dir.js';

/** The binary every test browser runs. */
export const CHROMIUM = process.env.CHROME_PATH ?? DEFAULT_CHROMIUM;

/** The product's flags, headless and without the sandbox. */
export const TEST_FLAGS: readonly string[] = ['--headless', '--no-sandbox', ...BASE_FLAGS];

export interface ChromiumOptions {
  /** More flags, after ours: `--host-resolver-rules=…`, a test's marker. */
  extraArgs?: readonly string[];
  /** An unpacked extension folder to load, and the only extension allowed to run. */
  extension?: string;
  /** How long it may take to open its DevTools endpoint (default 30 s). */
  startWithin?: number;
}

export interface LocalChromium {
  /** ws://127.0.0.1:PORT/devtools/browser/UUID */
  wsEndpoint: string;
  /** http://127.0.0.1:PORT (its /json/version names wsEndpoint) */
  httpEndpoint: string;
  pid: number;
  /** Kills its whole process group and removes its profile; safe to call twice. */
  kill(): void;
}

export async function launchChromium(options: ChromiumOptions = {}): Promise<LocalChromium> {
  const userDataDir = tempDir('test-chromium');
  const extension = options.extension
    ? [`--load-extension=${options.extension}`, `--disable-extensions-except=${options.extension}`]
    : [];
  const child = spawn(
    CHROMIUM,
    [
      ...withDisabledFeatures([
        ...TEST_FLAGS,
        `--user-data-dir=${userDataDir}`,
        '--remote-debugging-port=0',
        ...extension,
        ...(options.extraArgs ?? []),
      ]),
      'about:blank',
    ],
    { detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const kill = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    removeChromiumFolders(userDataDir, userDataDir);
  };
  try {
    const wsEndpoint = await devtoolsEndpoint(child, options.startWithin ?? 30_000);
    child.unref();
    return { wsEndpoint, httpEndpoint: `http://${new URL(wsEndpoint).host}`, pid: child.pid ?? 0, kill };
  } catch (error) {
    kill();
    throw error;
  }
}

/** Chromium prints its endpoint on stderr once it listens; what it printed last names a failure. */
function devtoolsEndpoint(child: ReturnType<typeof spawn>, within: number): Promise<string> {
  return new Promise<string>((resolve, reject) => {
    let stderr = '';
    const done = () => {
      clearTimeout(timer);
      child.stderr?.off('data', onData);
      child.off('exit', onExit);
      // Keep draining it, so a chatty browser never blocks on a full pipe.
      child.stderr?.resume();
    };
    const onData = (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000);
      const match = /DevTools listening on (ws:\/\/\S+)/.exec(stderr);
      if (match?.[1]) {
        done();
        resolve(match[1]);
      }
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`chromium exited ${code}: ${stderr}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`chromium did not open its DevTools endpoint within ${within} ms: ${stderr}`));
    }, within);
    child.stderr?.on('data', onData);
    child.once('exit', onExit);
  });
}

/**
 * A headless Chromium driven by playwright-core; the caller closes it. Without our disabled features:
 * playwright passes a `--disable-features` list of its own, which a second one would replace.
 */
export function launchPlaywrightChromium(): Promise<Browser> {
  return playwrightChromium.launch({ executablePath: CHROMIUM, args: [...BASE_FLAGS] });
}
