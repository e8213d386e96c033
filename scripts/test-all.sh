#!/usr/bin/env bash
# Sets up a fresh Debian machine and runs every check and test: what CI runs.
set -euo pipefail
cd "$(dirname "$0")/.."
TABGATE_SETUP_TESTS=1 bash scripts/setup.sh
npm run check
npm test
