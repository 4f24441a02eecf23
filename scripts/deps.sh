#!/usr/bin/env bash
# Installs everything the build, the tests and the fuzzers need (Debian 12, as root).
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config            # build
  libboost-filesystem-dev nlohmann-json3-dev libcli11-dev libacl1-dev   # libraries
  libgtest-dev libgmock-dev libbenchmark-dev  # tests and benchmarks
  acl util-linux procps                       # setfacl/getfacl, unshare/setpriv, ps
)
if [ "${1:-}" = "--tests" ]; then
  packages+=(
    openjdk-17-jdk-headless                   # real JVMs and jstat for the system tests
    python3 python3-jsonschema                # validates every report against reports/
    clang-14 libclang-rt-14-dev llvm-14       # libFuzzer + ASan/UBSan
  )
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
