#!/usr/bin/env bash
# Sets up a fresh Debian machine for tabgate: Debian's Chromium (never a downloaded browser), the npm
# packages, and the build. Safe to run again: each step is skipped when already done.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_packages=()
command -v chromium > /dev/null 2>&1 || [ -n "${CHROME_PATH:-}" ] || apt_packages+=(chromium)
# The test suite also checks a headed browser under a virtual display.
if [ "${TABGATE_SETUP_TESTS:-0}" = 1 ]; then
  command -v Xvfb > /dev/null 2>&1 || apt_packages+=(xvfb xauth)
  # The shared-store tests start their own PostgreSQL (initdb + postgres on a free port); a gateway on
  # the default path needs none, so only the test set-up installs it.
  compgen -G '/usr/lib/postgresql/*/bin/initdb' > /dev/null || apt_packages+=(postgresql)
  # The cluster tests start their own redis-server (apt installs it without starting it).
  command -v redis-server > /dev/null 2>&1 || apt_packages+=(redis-server)
fi
if [ "${#apt_packages[@]}" -gt 0 ]; then
  echo "setup: installing ${apt_packages[*]} from Debian"
  as_root apt-get update -qq
  # Another process may hold the dpkg lock for a while on a fresh machine.
  for attempt in 1 2 3 4 5 6; do
    if as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${apt_packages[@]}"; then break; fi
    [ "$attempt" = 6 ] && exit 1
    sleep 20
  done
fi
if command -v chromium > /dev/null 2>&1; then chromium --version 2> /dev/null || true; fi

# npm ci also builds (the prepare script); skip it when node_modules already matches the lockfile.
if [ "${CI:-}" = true ] || [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
else
  npm run build --silent
fi
