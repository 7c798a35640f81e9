#!/usr/bin/env bash
# The README's first command: installs everything a fresh Debian 12 machine
# lacks (compiler, CMake, libraries, Python venv), builds the engine and runs
# the main job.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
make --no-print-directory run
