#!/usr/bin/env bash
# What `make ARCH=ARCH` and its unit tests under qemu-user need, on Debian:
# the cross compiler, qemu-user and the target's libraries through multiarch.
# Called by scripts/install-deps.sh --arch ARCH; safe to run repeatedly.
#   scripts/install-cross-deps.sh arm64
set -euo pipefail
arch=${1:?usage: install-cross-deps.sh ARCH (arm64)}
case $arch in
arm64) triplet=aarch64-linux-gnu ;;
*)
	echo "install-cross-deps: no cross toolchain known for $arch" >&2
	exit 1
	;;
esac
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; else SUDO=; fi

if ! dpkg --print-foreign-architectures | grep -qx "$arch"; then
	$SUDO dpkg --add-architecture "$arch"
	$SUDO apt-get update -qq
fi
# No Criterion for ARCH (its package cannot be installed beside the native
# one): the unit tests run on tests/unit/support/criterion_lite.h there.
pkgs=(gcc-"$triplet" qemu-user-static)
for p in libbpf-dev libelf-dev zlib1g-dev libseccomp-dev libjson-c-dev; do
	pkgs+=("$p:$arch")
done
missing=()
for p in "${pkgs[@]}"; do
	st=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$st" = "install ok installed" ] || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-cross-deps: installing ${missing[*]}" >&2
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
