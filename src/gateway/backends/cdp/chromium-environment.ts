/**
 * The environment the local Chromium runs with: an allowlist of what it needs to start, render and
 * reach the network, never the gateway's own environment. That one holds `API_SERVER_KEY` and every
 * provider's credentials, and a browser that agents drive (and whose crash dumps and child processes
 * inherit its environment) has no use for them. With an allowlist a secret under a new name stays out
 * without anyone having to list it.
 *
 * What passes, and why:
 * - `PATH`: Debian's `/usr/bin/chromium` is a shell script that runs `findmnt`, `grep`, `uname` first.
 * - `HOME`: a private, empty folder per launch, never the user's. Chromium keeps its NSS certificate
 *   store (client certificates) under `~/.pki`, Crashpad its reports under `~/.config`, and the Debian
 *   wrapper prunes `~/.config/chromium`: none of the user's should reach an agent's browser.
 * - `LANG`, `LANGUAGE`, `LC_*`, `TZ`: the language, formats and time zone pages see.
 * - `FONTCONFIG_*`, `TMPDIR`: where fonts and temporary files are, when the system moved them.
 * - proxy variables: on a machine without a desktop they are the only way Chromium learns the route
 *   the user's network requires; they belong to the same user and the same purpose.
 * - headed runs only: `DISPLAY`, `WAYLAND_DISPLAY`, `XAUTHORITY`, `XDG_RUNTIME_DIR` (the Wayland
 *   socket's folder), `XDG_SESSION_TYPE`. With the private `HOME`, X11's default `~/.Xauthority` is
 *   named explicitly.
 *
 * Left out on purpose: `DBUS_SESSION_BUS_ADDRESS` (the desktop keyring would hand the browser the
 * user's stored passwords), `XDG_CONFIG_HOME`/`XDG_DATA_HOME`/`XDG_CACHE_HOME` (the user's folders),
 * `LD_PRELOAD`/`LD_LIBRARY_PATH`, and `GOOGLE_API_KEY` and friends.
 */
import path from 'node:path';

export type SourceEnvironment = Readonly<Record<string, string | undefined>>;

/** Used when the gateway's environment has no PATH (an embedder passing an empty one). */
export const DEFAULT_PATH = '/usr/local/bin:/usr/bin:/bin';

const ALWAYS = new Set([
  'PATH',
  'TMPDIR',
  'LANG',
  'LANGUAGE',
  'TZ',
  'FONTCONFIG_FILE',
  'FONTCONFIG_PATH',
  'FONTCONFIG_SYSROOT',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'auto_proxy',
  'SOCKS_SERVER',
]);

const HEADED = new Set(['DISPLAY', 'WAYLAND_DISPLAY', 'XAUTHORITY', 'XDG_RUNTIME_DIR', 'XDG_SESSION_TYPE']);

const passes = (name: string, headed: boolean): boolean =>
  ALWAYS.has(name) || name.startsWith('LC_') || (headed && HEADED.has(name));

export function chromiumEnvironment(
  source: SourceEnvironment,
  options: { home: string; headed: boolean },
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(source)) {
    if (value !== undefined && passes(name, options.headed)) env[name] = value;
  }
  env.PATH ||= DEFAULT_PATH;
  env.HOME = options.home;
  if (options.headed && env.XAUTHORITY === undefined && source.HOME)
    env.XAUTHORITY = path.join(source.HOME, '.Xauthority');
  return env;
}
