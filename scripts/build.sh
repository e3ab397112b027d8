#!/usr/bin/env bash
# Configure and build one flavour of allocsim. Usage: scripts/build.sh [release|sanitize] [extra cmake args]
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}; shift || true
jobs=$(nproc)
case "$flavour" in
  release)  dir=build;      args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo) ;;
  sanitize) dir=build-asan; args=(-DCMAKE_BUILD_TYPE=Debug -DALLOCSIM_SANITIZE=ON -DALLOCSIM_BUILD_BENCH=OFF -DALLOCSIM_BUILD_HW=OFF) ;;
  *) echo "usage: $0 [release|sanitize]" >&2; exit 2 ;;
esac
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
cmake -S . -B "$dir" "${gen[@]}" -DALLOCSIM_WERROR="${ALLOCSIM_WERROR:-OFF}" "${args[@]}" "$@" >/dev/null
cmake --build "$dir" -j "$jobs"
