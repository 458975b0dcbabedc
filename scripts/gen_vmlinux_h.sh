#!/usr/bin/env bash
# Regenerate the checked-in vmlinux.h from a kernel's BTF (CO-RE relocates at load
# time, so one header serves every kernel with BTF). Usage: gen_vmlinux_h.sh [BTF-file]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
btf=${1:-/sys/kernel/btf/vmlinux}
ver=$(uname -r | sed -E 's/^([0-9]+)\.([0-9]+).*/\1\2/')
out="$here/vmlinux/x86/vmlinux_${ver}.h"
bpftool btf dump file "$btf" format c > "$out.tmp"
mv "$out.tmp" "$out"
ln -sf "vmlinux_${ver}.h" "$here/vmlinux/x86/vmlinux.h"
echo "wrote $out"
