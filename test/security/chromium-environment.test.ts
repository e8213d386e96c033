/**
 * The local Chromium gets an allowlisted environment, never the gateway's secrets: a real `tabgate
 * serve` with secrets in its own environment launches Chromium on the first call, and every process of
 * that browser (the browser, its zygotes, renderers and utilities) is read through /proc/<pid>/environ.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { chromiumEnvironment } from '../../src/gateway/backends/cdp/chromium-environment.js';
import { makeHome, writeConfigFile } from '../gateway/fixtures/gateway.js';
import { cliEntry } from '../helpers/cli-entry.js';
import { startTestSite, type TestSite } from '../testserver/server.js';
import { cmdline, descendants, readEnviron } from '../helpers/processes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

const SECRETS = {
  API_SERVER_KEY: 'gateway-key-5f1c9a0e77d34b2a',
  BROWSERBASE_API_KEY: 'bb-secret-0c2f8e1d9a6b',
  OPENAI_API_KEY: 'sk-test-8d7c6b5a4f3e2d1c',
  GITHUB_TOKEN: 'ghp_test9e8d7c6b5a4f3e2d1c0b',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-1a2b3c4d5e6f7a8b',
};

describe('the local Chromium environment', () => {
  let site: TestSite;
  let home: string;
  let gateway: ChildProcess;
  let url: string;
  let key: string;
  let browserPids: number[];
  /** Each browser process's command line and environment, read once: short-lived helpers come and go. */
  let seen: { pid: number; args: string[]; env: Record<string, string> }[];

  before(async () => {
    site = await startTestSite();
    home = makeHome();
    // Provider keys in the environment would pick a cloud browser; the local one is the subject here.
    writeConfigFile(home, { browser: { cloud_provider: 'local' } });
    gateway = spawn(process.execPath, [...cliEntry(), 'serve', '--port', '0'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        TABGATE_HOME: home,
        LANG: 'C.UTF-8',
        TZ: 'Pacific/Auckland',
        TABGATE_TEST_CANARY: 'canary-not-for-chromium',
        ...SECRETS,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    gateway.stderr?.resume();
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      gateway.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString('utf8');
        const match = /listening on (http:\/\/\S+)/.exec(out);
        if (match?.[1]) resolve(match[1]);
      });
      gateway.once('exit', (code) => reject(new Error(`tabgate serve exited ${code}: ${out}`)));
    });
    key = SECRETS.API_SERVER_KEY;
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
    const session = (await (
      await fetch(`${url}/v1/sessions`, { method: 'POST', headers, body: '{}' })
    ).json()) as { session_id: string };
    const nav = await fetch(`${url}/v1/sessions/${session.session_id}/tools/browser_navigate`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ url: site.url('/page2') }),
    });
    assert.equal(nav.status, 200, await nav.text());
    // The gateway's other children (tsx's esbuild service) are the gateway's own, not the browser's.
    const browser = descendants(gateway.pid ?? -1).find((pid) => {
      const args = cmdline(pid);
      return args.includes('--remote-debugging-pipe') && !args.some((a) => a.startsWith('--type='));
    });
    assert.ok(browser, 'the browser process is a child of the gateway');
    browserPids = [browser, ...descendants(browser)];
    seen = browserPids.flatMap((pid) => {
      try {
        return [{ pid, args: cmdline(pid), env: readEnviron(pid) }];
      } catch (error) {
        // A helper that exited between the listing and the read has no environment left to check.
        if (
          (error as NodeJS.ErrnoException).code === 'ESRCH' ||
          (error as NodeJS.ErrnoException).code === 'ENOENT'
        )
          return [];
        throw error;
      }
    });
  });
  after(async () => {
    if (gateway.exitCode === null) {
      const exited = new Promise((resolve) => gateway.once('exit', resolve));
      gateway.kill('SIGTERM');
      await exited;
    }
    await site.close();
    fs.rmSync(home, { recursive: true, force: true, maxRetries: 10 });
  });

  it('finds the browser and its helper processes, a renderer among them', () => {
    const kinds = seen.map(({ args }) => /--type=([\w-]+)/.exec(args.join(' '))?.[1]);
    assert.ok(kinds.includes('renderer'), kinds.join(','));
    assert.ok(seen.length >= 3, `${seen.length} processes`);
  });

  it("gives no Chromium process any of the gateway's secrets, by name or by value", () => {
    for (const { pid, env } of seen) {
      const text = JSON.stringify(env);
      for (const [name, value] of Object.entries(SECRETS)) {
        assert.ok(!(name in env), `${name} in process ${pid}`);
        assert.ok(!text.includes(value), `the value of ${name} in process ${pid}`);
      }
      assert.equal(env.TABGATE_TEST_CANARY, undefined, `a variable off the allowlist in process ${pid}`);
      assert.equal(env.TABGATE_HOME, undefined);
    }
  });

  it('passes the locale and time zone, and a private HOME inside the browser’s 0700 scratch folder', () => {
    const browser = browserPids[0] as number;
    const env = readEnviron(browser);
    assert.equal(env.LANG, 'C.UTF-8');
    assert.equal(env.TZ, 'Pacific/Auckland');
    assert.ok(env.PATH);
    const profile = cmdline(browser)
      .find((a) => a.startsWith('--user-data-dir='))
      ?.slice('--user-data-dir='.length);
    assert.ok(profile);
    const scratch = path.dirname(profile);
    assert.equal(env.HOME, path.join(scratch, 'home'));
    assert.notEqual(env.HOME, process.env.HOME);
    for (const dir of [scratch, profile, env.HOME])
      assert.equal((fs.statSync(dir).mode & 0o777).toString(8), '700', dir);
  });
});

describe('the Chromium environment allowlist', () => {
  const source = {
    PATH: '/usr/bin',
    HOME: '/home/ada',
    LANG: 'de_DE.UTF-8',
    LC_TIME: 'en_GB.UTF-8',
    TZ: 'Europe/Berlin',
    DISPLAY: ':1',
    XDG_RUNTIME_DIR: '/run/user/1000',
    https_proxy: 'http://proxy:3128',
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
    LD_PRELOAD: '/tmp/evil.so',
    XDG_CONFIG_HOME: '/home/ada/.config',
    API_SERVER_KEY: 'k',
    SOME_PROVIDER_API_KEY: 'k',
  };

  it('keeps locale, time zone, PATH and proxies, and replaces HOME with the private one', () => {
    assert.deepEqual(chromiumEnvironment(source, { home: '/tmp/x/home', headed: false }), {
      PATH: '/usr/bin',
      HOME: '/tmp/x/home',
      LANG: 'de_DE.UTF-8',
      LC_TIME: 'en_GB.UTF-8',
      TZ: 'Europe/Berlin',
      https_proxy: 'http://proxy:3128',
    });
  });

  it('adds the display variables for a headed browser, with the user’s X authority file', () => {
    const env = chromiumEnvironment(source, { home: '/tmp/x/home', headed: true });
    assert.equal(env.DISPLAY, ':1');
    assert.equal(env.XDG_RUNTIME_DIR, '/run/user/1000');
    assert.equal(env.XAUTHORITY, '/home/ada/.Xauthority');
    assert.equal(env.DBUS_SESSION_BUS_ADDRESS, undefined);
  });

  it('gives a browser launched from an empty environment a PATH to run Debian’s wrapper script', () => {
    assert.deepEqual(chromiumEnvironment({}, { home: '/h', headed: false }), {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: '/h',
    });
  });
});
