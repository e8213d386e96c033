/**
 * The local Chromium runs inside its sandbox whenever the machine allows it, and with --no-sandbox only
 * when it cannot (root; no user namespaces and no setuid helper). The probe is checked against every
 * case with a substituted host; the real thing is checked by launching Chromium as an ordinary user
 * and looking at its renderers: each in a user namespace of its own, under a seccomp filter.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { probeSandbox, type SandboxHost } from '../../src/gateway/backends/cdp/chromium-sandbox.js';
import { chromiumPidsWith } from '../engine/chromium-processes.js';
import { waitFor } from '../helpers/wait-for.js';
import { cmdline, descendants } from '../helpers/processes.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function host(o: {
  uid?: number;
  sysctls?: Record<string, string>;
  userns?: boolean | null;
  files?: Record<string, { uid: number; mode: number }>;
}): SandboxHost {
  return {
    platform: 'linux',
    uid: o.uid ?? 1000,
    readSysctl: (file) => o.sysctls?.[file] ?? null,
    tryUserNamespace: () => (o.userns === undefined ? true : o.userns),
    stat: (file) => o.files?.[file] ?? null,
    realpath: (file) => file,
  };
}

const HELPER = { '/usr/lib/chromium/chrome-sandbox': { uid: 0, mode: 0o104755 } };
const NO_USERNS = { '/proc/sys/user/max_user_namespaces': '0' };

describe('the sandbox probe', () => {
  it('sandboxes an ordinary user with user namespaces', () => {
    assert.deepEqual(probeSandbox('/usr/bin/chromium', host({})), {
      sandboxed: true,
      via: 'user namespaces',
    });
  });

  it('turns the sandbox off for root, and says to run as an ordinary user', () => {
    const decision = probeSandbox('/usr/bin/chromium', host({ uid: 0, files: HELPER }));
    assert.equal(decision.sandboxed, false);
    assert.match(decision.sandboxed ? '' : decision.fix, /ordinary user/);
  });

  for (const [file, value, name] of [
    ['/proc/sys/user/max_user_namespaces', '0', 'user.max_user_namespaces = 0'],
    ['/proc/sys/kernel/unprivileged_userns_clone', '0', 'kernel.unprivileged_userns_clone = 0'],
    [
      '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
      '1',
      'apparmor_restrict_unprivileged_userns = 1',
    ],
  ] as const) {
    it(`names ${name} when it leaves no sandbox, and the helper package that would give one`, () => {
      const decision = probeSandbox('/usr/bin/chromium', host({ sysctls: { [file]: value } }));
      assert.equal(decision.sandboxed, false);
      if (decision.sandboxed) return;
      assert.ok(decision.reason.includes(name), decision.reason);
      assert.match(decision.fix, /chromium-sandbox/);
    });
  }

  it('names a refused user namespace (a container seccomp profile) when the sysctls allow one', () => {
    const decision = probeSandbox('/usr/bin/chromium', host({ userns: false }));
    assert.equal(decision.sandboxed, false);
    assert.match(decision.sandboxed ? '' : decision.reason, /seccomp/);
  });

  it('falls back to a root-owned setuid chrome-sandbox helper next to the real binary', () => {
    assert.deepEqual(probeSandbox('/usr/bin/chromium', host({ sysctls: NO_USERNS, files: HELPER })), {
      sandboxed: true,
      via: 'the setuid helper /usr/lib/chromium/chrome-sandbox',
    });
    const chrome = { '/opt/google/chrome/chrome-sandbox': { uid: 0, mode: 0o104755 } };
    assert.equal(
      probeSandbox('/opt/google/chrome/chrome', host({ userns: false, files: chrome })).sandboxed,
      true,
    );
  });

  it('ignores a helper that is not setuid root', () => {
    for (const helper of [
      { uid: 0, mode: 0o100755 },
      { uid: 1000, mode: 0o104755 },
    ]) {
      const files = { '/usr/lib/chromium/chrome-sandbox': helper };
      assert.equal(probeSandbox('/usr/bin/chromium', host({ sysctls: NO_USERNS, files })).sandboxed, false);
    }
  });
});

const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((file) => fs.existsSync(file));
const isRoot = process.getuid?.() === 0;

describe('the local Chromium sandbox, for real', () => {
  it(
    'runs Chromium with --no-sandbox as root, the one way Chromium starts as root',
    { skip: !isRoot && 'not root' },
    async () => {
      const launch = await launchAs([]);
      try {
        assert.equal(launch.sandbox.sandboxed, false);
        assert.ok(cmdline(launch.pid).includes('--no-sandbox'));
      } finally {
        await launch.close();
      }
    },
  );

  it(
    'runs Chromium as an ordinary user inside its sandbox: renderers in their own user namespace, under seccomp',
    { skip: isRoot && !setpriv ? 'setpriv is missing to switch to an ordinary user' : false },
    async (t) => {
      // `nobody` exists on every Debian system; switching to it needs root, which tests here have.
      const asUser = isRoot
        ? [setpriv as string, '--reuid=65534', '--regid=65534', '--clear-groups', '--']
        : [];
      const launch = await launchAs(asUser);
      try {
        if (!launch.sandbox.sandboxed) {
          t.skip(`this machine gives an ordinary user no sandbox: ${launch.sandbox.reason}`);
          return;
        }
        assert.equal(cmdline(launch.pid).includes('--no-sandbox'), false);
        const renderers = await waitForRenderers(launch.pid);
        const browserNs = fs.readlinkSync(`/proc/${launch.pid}/ns/user`);
        for (const pid of renderers) {
          assert.notEqual(
            fs.readlinkSync(`/proc/${pid}/ns/user`),
            browserNs,
            `renderer ${pid} has its own user namespace`,
          );
          // A renderer forked a moment ago installs its filter as it starts: give it that moment.
          await waitFor(() => /^Seccomp:\s+2$/m.test(fs.readFileSync(`/proc/${pid}/status`, 'utf8')), {
            what: `renderer ${pid} to run under seccomp`,
            every: 50,
          });
        }
      } finally {
        await launch.close();
      }
      assert.deepEqual(chromiumPidsWith(launch.marker), []);
    },
  );
});

interface Launch {
  pid: number;
  marker: string;
  sandbox: { sandboxed: true; via: string } | { sandboxed: false; reason: string };
  close(): Promise<void>;
}

async function launchAs(prefix: string[]): Promise<Launch> {
  const marker = `--tabgate-test-marker=${randomUUID()}`;
  const command = [
    ...prefix,
    process.execPath,
    '--import',
    'tsx',
    path.join(root, 'test/security/fixtures/launch-child.ts'),
    marker,
  ];
  const child = spawn(command[0] as string, command.slice(1), {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: '/tmp' },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the launch child exited ${code}`)));
  });
  const { pid, sandbox } = JSON.parse(line) as Pick<Launch, 'pid' | 'sandbox'>;
  return {
    pid,
    marker,
    sandbox,
    async close() {
      child.stdin.end();
      await exited;
    },
  };
}

/** The renderers under the browser process: the page and its helpers start a moment after launch. */
async function waitForRenderers(browser: number): Promise<number[]> {
  const renderers = () =>
    descendants(browser).filter((pid) => cmdline(pid).join(' ').includes('--type=renderer'));
  return waitFor(() => (renderers().length > 0 ? renderers() : undefined), {
    what: 'a renderer to start',
    every: 50,
  });
}
