#!/usr/bin/env bash
# Installs everything the build, the tests and the fuzzers need (Debian 12, as root).
set -euo pipefail
packages=(
  cmake ninja-build g++ pkg-config            # build
  libboost-filesystem-dev nlohmann-json3-dev libcli11-dev libacl1-dev liburing-dev   # libraries
  libgtest-dev libgmock-dev libbenchmark-dev  # tests and benchmarks
  acl util-linux procps                       # setfacl/getfacl, unshare/setpriv, ps
)
if [ "${1:-}" = "--tests" ]; then
  packages+=(
    openjdk-17-jdk-headless                   # real JVMs and jstat for the system tests
    python3 python3-jsonschema                # validates every report against schemas/
    python3-cram jq                           # the transcript tests: cram replays them, jq picks JSON fields
    clang-14 libclang-rt-14-dev llvm-14       # libFuzzer, the clang build, ASan/UBSan
    gcovr                                     # scripts/coverage.sh
    zsh                                       # the shell completion test drives bash and zsh on a pty
    strace                                    # holds the reaper between two system calls (race tests)
    spin                                      # model-checks the removal protocol (scripts/verify.sh)
    prometheus-node-exporter prometheus       # the metrics scrape test, promtool
    lintian dpkg-dev fakeroot file man-db     # the Debian package test; man renders the man page for its test
    rpm rpmlint cpio                          # the RPM: rpmbuild for CPack, rpmlint, rpm --root, its binary
    debootstrap systemd-container             # the field test: Debian 12 and 13 roots booted by systemd-nspawn
    g++-mingw-w64-x86-64-posix wine wine64    # the Windows build, its tests run under wine
    googletest                                # GoogleTest sources, built for Windows
    buildah podman runc python3-yaml          # the node image (scripts/image.sh) run with the DaemonSet's settings, parsed from its YAML
    systemd                                   # systemd-tmpfiles --clean on the tmpfiles.d snippet, systemd-analyze verify of the units
    clang-tidy-14 cppcheck shellcheck         # static analysis of src/ and the shell scripts (scripts/lint.sh)
  )
fi
export DEBIAN_FRONTEND=noninteractive
# Installing must not start daemons (node_exporter and prometheus ship services): an
# invoke-rc.d policy that says "not now" for the duration of the install, unless one exists.
policy=/usr/sbin/policy-rc.d
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy"
  chmod 0755 "$policy"
  trap 'rm -f "$policy"' EXIT
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
