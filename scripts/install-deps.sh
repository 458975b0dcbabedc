#!/usr/bin/env bash
# Install the Debian packages adaptrm needs to build, test and benchmark,
# only those that are missing. Safe to run repeatedly.
#   scripts/install-deps.sh          build + test dependencies
#   scripts/install-deps.sh --bench  also the peers the benchmark compares against
#   scripts/install-deps.sh --deb    also what building and checking the Debian packages needs
#   scripts/install-deps.sh --arch arm64  only what make ARCH=arm64 adds (cross)
set -euo pipefail
if [ "${1:-}" = "--arch" ]; then
  exec "$(dirname "$0")/install-cross-deps.sh" "${2:?--arch needs an architecture: arm64}"
fi

pkgs=(
  build-essential pkg-config clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev
  libcriterion-dev libjson-c-dev libseccomp-dev libfuse3-dev fuse3 openmpi-bin libopenmpi-dev
  util-linux e2fsprogs xfsprogs btrfs-progs strace attr procps findutils jq time python3
  clang-format shellcheck libclang-rt-14-dev python3-matplotlib
)
if [ "${1:-}" = "--bench" ]; then
  pkgs+=(rsync linux-perf)
fi
if [ "${1:-}" = "--deb" ]; then
  pkgs+=(debhelper lintian libseccomp-dev libjson-c-dev)
fi

missing=()
for p in "${pkgs[@]}"; do
  st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$st" = "install ok installed" ] || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "${1:-}" = "--bench" ] && ! command -v rmz >/dev/null 2>&1 && ! [ -x "$HOME/.cargo/bin/rmz" ]; then
  if command -v cargo >/dev/null 2>&1; then
    echo "install-deps: cargo install rmz" >&2
    cargo install --quiet rmz || echo "install-deps: rmz could not be installed; the benchmark will skip it" >&2
  else
    echo "install-deps: no cargo; the benchmark will skip rmz" >&2
  fi
fi
