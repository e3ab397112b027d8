#!/usr/bin/env bash
# Installs every Debian 12 package allocsim needs to build, test and report.
# Idempotent: installs only what is missing, runs `apt-get update` at most once.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config
  libboost1.81-all-dev      # Boost.Random (portable distributions), Boost.JSON, Boost.Iostreams (gzip), Boost.MPI
  libopenmpi-dev openmpi-bin  # Open MPI: sweeps, samples and explorations across ranks (mpirun; tests/mpi)
  libbenchmark-dev          # Google Benchmark (bench/)
  catch2                    # Catch2 v2.13 (tests/)
  libyaml-cpp-dev           # scenario YAML
  libcli11-dev              # command line
  zlib1g-dev                # gzip for PyTorch snapshots
  libprotobuf-dev protobuf-compiler  # JAX/XLA profiles (XSpace protobuf; protoc at build time)
  gnuplot-nox               # report plots (optional at run time)
  clang libclang-rt-14-dev  # libFuzzer + sanitizer runtimes
)
# HIP (optional backend): Debian's HIP 5.2 headers/runtime and hipcc.
optional_packages=(libamdhip64-dev hipcc)

missing=()
for p in "${packages[@]}" "${optional_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all packages present"
  exit 0
fi
SUDO=""
[ "$(id -u)" -ne 0 ] && SUDO="sudo"
echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "setup: done"
