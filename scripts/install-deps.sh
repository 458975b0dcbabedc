#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install the Debian packages adaptrm needs to build, test and benchmark,
# only those that are missing. Safe to run repeatedly.
#   scripts/install-deps.sh          build + test dependencies
#   scripts/install-deps.sh --bench  also the peers the benchmark compares against
#   scripts/install-deps.sh --deb    also what building and checking the Debian packages needs
#   scripts/install-deps.sh --arch arm64  only what make ARCH=arm64 adds: the
#       cross compiler, qemu-user and the target's libraries through multiarch
set -euo pipefail
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi

# cross_pkgs ARCH: the packages of a cross build for ARCH. No Criterion for
# ARCH (its package cannot be installed beside the native one): the unit
# tests run on tests/unit/support/criterion_lite.h there.
cross_pkgs() {
  local arch=$1 triplet p
  case $arch in
  arm64) triplet=aarch64-linux-gnu ;;
  *)
    echo "install-deps: no cross toolchain known for $arch" >&2
    exit 1
    ;;
  esac
  if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
    $SUDO dpkg --add-architecture "$arch"
    $SUDO apt-get update -qq
  fi
  pkgs=(gcc-"$triplet" qemu-user-static)
  for p in libbpf-dev libelf-dev zlib1g-dev libseccomp-dev libjson-c-dev; do
    pkgs+=("$p:$arch")
  done
}

if [ "${1:-}" = "--arch" ]; then
  cross_pkgs "${2:?--arch needs an architecture: arm64}"
else
  pkgs=(
    build-essential pkg-config clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev
    libcriterion-dev libjson-c-dev libseccomp-dev libfuse3-dev fuse3 openmpi-bin libopenmpi-dev
    util-linux e2fsprogs xfsprogs btrfs-progs strace attr procps findutils jq time python3
    clang-format shellcheck libclang-rt-14-dev python3-matplotlib
    slurm-wlm munge auditd
  )
fi
if [ "${1:-}" = "--bench" ]; then
  pkgs+=(rsync linux-perf)
fi
if [ "${1:-}" = "--deb" ]; then
  pkgs+=(debhelper lintian libseccomp-dev libjson-c-dev)
fi

# A package counts as installed for its own architecture (NAME:ARCH) or,
# named plainly, for the native one or all: another architecture's copy
# beside it (after --arch) is not the native one.
native=$(dpkg --print-architecture)
missing=()
for p in "${pkgs[@]}"; do
  case $p in *:*) want=${p##*:} ;; *) want=$native ;; esac
  dpkg-query -W -f='${Status} ${Architecture}\n' "$p" 2>/dev/null |
    grep -Eq "^install ok installed ($want|all)\$" || missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  # The diagnosis suite starts an audit daemon of its own and stops it; one
  # that the package started would audit every system call of the machine
  # from now on (the benchmarks' and the tests' too).
  case " ${missing[*]} " in
  *" auditd "*)
    $SUDO pkill -x auditd 2>/dev/null || true
    $SUDO auditctl -e 0 >/dev/null 2>&1 || true
    ;;
  esac
fi

if [ "${1:-}" = "--bench" ] && ! command -v rmz >/dev/null 2>&1 && ! [ -x "$HOME/.cargo/bin/rmz" ]; then
  if command -v cargo >/dev/null 2>&1; then
    echo "install-deps: cargo install rmz" >&2
    cargo install --quiet rmz || echo "install-deps: rmz could not be installed; the benchmark will skip it" >&2
  else
    echo "install-deps: no cargo; the benchmark will skip rmz" >&2
  fi
fi
