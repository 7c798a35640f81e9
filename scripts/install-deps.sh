#!/usr/bin/env bash
# Installs everything the testbed needs on a Debian 12 machine, from Debian
# packages and PyPI only, skipping what is already there. Idempotent.
#   scripts/install-deps.sh            system packages (when missing) + .venv
#   SKIP_APT=1 scripts/install-deps.sh only the Python virtual environment
set -euo pipefail
cd "$(dirname "$0")/.."

# libboost-context-dev: the fibers of the simulation build (make build
# VARIANT=sim, docs/sim.md).
# postgresql, libpq-dev: bin/middletier and the private server the harness
# starts for ding-fig26..28 (docs/middletier.md); as root the server runs as
# the `postgres` user that the package creates.
DEBIAN_PACKAGES=(
  g++ make cmake ninja-build pkg-config git ccache
  libgflags-dev libgoogle-glog-dev libtbb-dev libnuma-dev libmetis-dev
  libgtest-dev libgmock-dev
  libboost-context-dev
  postgresql libpq-dev
  python3 python3-venv python3-pip
)

missing=()
for p in "${DEBIAN_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [[ ${#missing[@]} -gt 0 && -z "${SKIP_APT:-}" ]]; then
  echo "install-deps: installing Debian packages: ${missing[*]}"
  SUDO=""
  [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python virtual environment for the harness (scripts/) and its tests: the
# pinned packages of requirements.txt, then the harness itself (pyproject.toml)
# installed editable, so that .venv/bin/ccbench runs the checkout's scripts/ccbench.
if [[ ! -x .venv/bin/python ]]; then
  python3 -m venv .venv
fi
stamp=.venv/.requirements.sha
want=$(cat requirements.txt pyproject.toml | sha256sum | cut -d' ' -f1)
if [[ ! -f $stamp || "$(cat $stamp)" != "$want" || ! -x .venv/bin/ccbench ]] \
    || ! .venv/bin/python -c 'import ccbench, pathlib, sys; sys.exit(pathlib.Path(ccbench.__file__).resolve().parents[1] != pathlib.Path("scripts").resolve())' 2>/dev/null; then
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r requirements.txt
  .venv/bin/python -m pip install -q -e .
  echo "$want" > $stamp
fi
echo "install-deps: ok"
