/**
 * Whether the local Chromium can use its sandbox, decided once per binary from cheap probes that change
 * nothing on the machine. Chromium's Linux sandbox needs one of two things, and refuses to start
 * without `--no-sandbox` when it has neither:
 *
 * 1. unprivileged user namespaces: allowed by the sysctls below, and not forbidden by a container's
 *    seccomp profile, which only trying can tell (`unshare --user true`: the namespace dies with it);
 * 2. the setuid `chrome-sandbox` helper next to the real Chromium binary (root-owned, mode 4755;
 *    Debian's `chromium-sandbox` package), which Chromium falls back to.
 *
 * As root Chromium refuses the sandbox outright ("Running as root without --no-sandbox is not
 * supported"), so root always gets `--no-sandbox`. `tabgate doctor` prints the same decision, with
 * what to do when the browser runs unsandboxed.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export type SandboxDecision =
  { sandboxed: true; via: string } | { sandboxed: false; reason: string; fix: string };

/** What the probe reads from the machine; tests substitute their own. */
export interface SandboxHost {
  platform: NodeJS.Platform;
  /** Null where there are no user ids. */
  uid: number | null;
  /** A /proc/sys file's trimmed content, or null when it does not exist. */
  readSysctl(file: string): string | null;
  /** Whether this user can create a user namespace; null when it cannot be tried. */
  tryUserNamespace(): boolean | null;
  stat(file: string): { uid: number; mode: number } | null;
  realpath(file: string): string;
}

/** Debian's `/usr/bin/chromium` is a shell script; the browser it runs lives here. */
const DEBIAN_WRAPPER = '/usr/bin/chromium';
const DEBIAN_LIBDIR = '/usr/lib/chromium';

const USERNS_SWITCHES: readonly { file: string; off: string; name: string }[] = [
  { file: '/proc/sys/kernel/unprivileged_userns_clone', off: '0', name: 'kernel.unprivileged_userns_clone' },
  { file: '/proc/sys/user/max_user_namespaces', off: '0', name: 'user.max_user_namespaces' },
  {
    file: '/proc/sys/kernel/apparmor_restrict_unprivileged_userns',
    off: '1',
    name: 'kernel.apparmor_restrict_unprivileged_userns',
  },
];

/** Why user namespaces cannot serve the sandbox, or null when they can. */
function userNamespacesUnavailable(host: SandboxHost): string | null {
  for (const s of USERNS_SWITCHES) {
    if (host.readSysctl(s.file) === s.off)
      return `unprivileged user namespaces are off (${s.name} = ${s.off})`;
  }
  if (host.tryUserNamespace() === false)
    return 'creating a user namespace is refused (a container seccomp profile forbids it)';
  return null;
}

function helperCandidates(binary: string, host: SandboxHost): string[] {
  const candidates = new Set<string>();
  try {
    candidates.add(path.join(path.dirname(host.realpath(binary)), 'chrome-sandbox'));
  } catch {
    // A missing binary is reported elsewhere.
  }
  if (binary === DEBIAN_WRAPPER) candidates.add(path.join(DEBIAN_LIBDIR, 'chrome-sandbox'));
  return [...candidates];
}

/** The setuid helper Chromium would use: root-owned, setuid, runnable by everyone. */
function usableHelper(binary: string, host: SandboxHost): string | null {
  for (const file of helperCandidates(binary, host)) {
    const st = host.stat(file);
    if (st && st.uid === 0 && (st.mode & 0o4000) !== 0 && (st.mode & 0o001) !== 0) return file;
  }
  return null;
}

export function probeSandbox(binary: string, host: SandboxHost): SandboxDecision {
  if (host.platform !== 'linux') return { sandboxed: true, via: `the ${host.platform} sandbox` };
  if (host.uid === 0) {
    return {
      sandboxed: false,
      reason: 'tabgate runs as root, and Chromium refuses its sandbox to root',
      fix: 'run tabgate as an ordinary user',
    };
  }
  const userns = userNamespacesUnavailable(host);
  if (userns === null) return { sandboxed: true, via: 'user namespaces' };
  const helper = usableHelper(binary, host);
  if (helper) return { sandboxed: true, via: `the setuid helper ${helper}` };
  return {
    sandboxed: false,
    reason: `${userns}, and no setuid chrome-sandbox helper is installed next to Chromium`,
    fix: 'allow unprivileged user namespaces, or install the setuid helper (Debian: apt-get install chromium-sandbox)',
  };
}

const UNSHARE = ['/usr/bin/unshare', '/bin/unshare'];

export const systemSandboxHost: SandboxHost = {
  platform: process.platform,
  uid: typeof process.getuid === 'function' ? process.getuid() : null,
  readSysctl(file) {
    try {
      return fs.readFileSync(file, 'utf8').trim();
    } catch {
      return null;
    }
  },
  tryUserNamespace() {
    const unshare = UNSHARE.find((file) => fs.existsSync(file));
    if (!unshare) return null;
    const run = spawnSync(unshare, ['--user', 'true'], { stdio: 'ignore', env: {}, timeout: 5000 });
    return run.status === 0;
  },
  stat(file) {
    try {
      const st = fs.statSync(file);
      return { uid: st.uid, mode: st.mode };
    } catch {
      return null;
    }
  },
  realpath: (file) => fs.realpathSync(file),
};

const decisions = new Map<string, SandboxDecision>();

/** The decision for this process and binary, probed on first use (a few milliseconds) and then kept. */
export function sandboxFor(binary: string): SandboxDecision {
  let decision = decisions.get(binary);
  if (!decision) {
    decision = probeSandbox(binary, systemSandboxHost);
    decisions.set(binary, decision);
  }
  return decision;
}
