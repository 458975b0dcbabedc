#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Regenerate a checked-in vmlinux.h from a kernel's BTF (CO-RE relocates at
# load time, so one header serves every kernel with BTF).
#   gen_vmlinux_h.sh [BTF-file]    this machine's architecture, from the
#                                  running kernel (or BTF-file)
#   gen_vmlinux_h.sh --arch arm64  arm64, from Debian's arm64 kernel image
# The arm64 header needs no arm64 machine: Debian's unsigned arm64 kernel
# package is downloaded (apt-get download, about 60 MB, with arm64 added by
# dpkg --add-architecture arm64), and the BTF blob that the kernel image
# carries in its .BTF section is cut out of it and dumped by bpftool. The
# debug image (the -dbg package) would do too, at ten times the download.
set -euo pipefail
tmp=
here=$(cd "$(dirname "$0")/.." && pwd)

# vmlinux/ARCH/vmlinux_VER.h from BTF, and vmlinux.h pointing at it.
dump() { # ARCH VER BTF
	local out="$here/vmlinux/$1/vmlinux_$2.h"
	mkdir -p "$here/vmlinux/$1"
	bpftool btf dump file "$3" format c >"$out.tmp"
	mv "$out.tmp" "$out"
	ln -sf "vmlinux_$2.h" "$here/vmlinux/$1/vmlinux.h"
	echo "wrote $out"
}

# The BTF blob inside a kernel Image: its header (magic 0xeb9f, version 1,
# a 24-byte header, types then strings) gives its length.
carve_btf() { # IMAGE OUT
	python3 - "$1" "$2" <<'PY'
import struct, sys
img = open(sys.argv[1], "rb").read()
at = img.find(b"\x9f\xeb\x01\x00")
while at >= 0:
    hdr, toff, tlen, soff, slen = struct.unpack_from("<IIIII", img, at + 4)
    if hdr == 24 and toff == 0 and soff == tlen and tlen > 65536 and slen > 65536:
        open(sys.argv[2], "wb").write(img[at:at + hdr + soff + slen])
        sys.exit(0)
    at = img.find(b"\x9f\xeb\x01\x00", at + 1)
sys.exit("no BTF in " + sys.argv[1])
PY
}

from_debian() { # ARCH (Debian's name: arm64)
	local arch=$1 pkg ver
	pkg=$(apt-cache search --names-only "^linux-image-[0-9.]+-[0-9]+-$arch-unsigned\$" |
		cut -d' ' -f1 | sort -V | tail -1)
	[ -n "$pkg" ] || {
		echo "gen_vmlinux_h: no $arch kernel package (dpkg --add-architecture $arch && apt-get update)" >&2
		exit 1
	}
	ver=$(echo "$pkg" | sed -E 's/^linux-image-([0-9]+)\.([0-9]+).*/\1\2/')
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	# root downloads into the private directory itself (no _apt sandbox)
	(cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "$pkg:$arch" >/dev/null)
	dpkg-deb --fsys-tarfile "$tmp"/*.deb | tar -x -C "$tmp" --wildcards './boot/vmlinuz-*'
	local image=("$tmp"/boot/vmlinuz-*)
	# arm64's vmlinuz is an uncompressed Image; a gzip'ed one is unpacked
	if gzip -t "${image[0]}" 2>/dev/null; then
		gzip -dc "${image[0]}" >"$tmp/Image"
	else
		mv "${image[0]}" "$tmp/Image"
	fi
	carve_btf "$tmp/Image" "$tmp/vmlinux.btf"
	echo "from $pkg"
	dump "$arch" "$ver" "$tmp/vmlinux.btf"
}

if [ "${1:-}" = --arch ]; then
	from_debian "${2:?--arch needs an architecture, e.g. arm64}"
else
	arch=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
	dump "$arch" "$(uname -r | sed -E 's/^([0-9]+)\.([0-9]+).*/\1\2/')" "${1:-/sys/kernel/btf/vmlinux}"
fi
