#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Install the packages scripts/build-deb.sh built, try the installed binaries
# (a delete, --trace, adaptrm-mpi on two ranks, the man page and completion),
# then remove the packages and check their files went with them. The packages
# are removed on failure too. Needs root; --trace also needs BTF, and is
# skipped without it unless ADAPTRM_REQUIRE_BPF=1.
#   scripts/smoke-installed.sh DEBDIR
set -euo pipefail

PKGS=(adaptrm adaptrm-mpi)
FILES=(/usr/bin/adaptrm /usr/bin/adaptrm-mpi /usr/share/man/man1/adaptrm.1.gz
	/usr/share/bash-completion/completions/adaptrm)
# The boot unit that resumes root's held deletes (its directory is debhelper's).
UNIT=adaptrm-resume.service

fail() {
	echo "smoke-installed: FAIL: $*" >&2
	exit 1
}
say() { echo "smoke-installed: $*"; }

[ $# -eq 1 ] || fail "usage: scripts/smoke-installed.sh DEBDIR"
[ "$(id -u)" -eq 0 ] || fail "needs root (apt-get install)"
debdir=$(cd "$1" && pwd)
# apt-get waits for the dpkg lock rather than failing when another apt-get holds it.
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -qq "$@"; }
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q ' installed$'; }
for p in "${PKGS[@]}"; do
	! installed "$p" || fail "$p is installed already: this test would remove it"
done

work=$(mktemp -d /tmp/adaptrm-smoke.XXXXXX)
cleanup() {
	local p
	for p in "${PKGS[@]}"; do
		if installed "$p"; then
			apt_get remove "$p" >/dev/null ||
				echo "smoke-installed: could not remove $p" >&2
		fi
	done
	rm -rf "$work"
}
trap cleanup EXIT

debs=()
for p in "${PKGS[@]}"; do
	found=("$debdir/${p}"_*.deb)
	[ -f "${found[0]}" ] || fail "no ${p}_*.deb in $debdir"
	debs+=("${found[0]}")
done
state_before=0
[ ! -e /var/lib/adaptrm ] || state_before=1
say "installing ${debs[*]##*/}"
apt_get install "${debs[@]}" >"$work/apt.log" 2>&1 ||
	{ cat "$work/apt.log" >&2; fail "apt-get install"; }

for f in "${FILES[@]}"; do
	[ -e "$f" ] || fail "$f is not installed"
done
unit=$(dpkg-query -L adaptrm | grep "/systemd/system/$UNIT\$") || fail "no $UNIT in adaptrm"
if command -v systemd-analyze >/dev/null; then
	systemd-analyze verify "$unit" || fail "systemd-analyze verify $unit"
fi
# Every file the packages hold, to check after their removal.
dpkg-query -L "${PKGS[@]}" | while read -r f; do [ -d "$f" ] || echo "$f"; done >"$work/files"
for b in /usr/bin/adaptrm /usr/bin/adaptrm-mpi; do
	if readelf -S "$b" | grep -q '\.debug_info'; then fail "$b is not stripped"; fi
done
/usr/bin/adaptrm --version | head -n 1 | grep -q '^adaptrm (adaptrm) ' ||
	fail "adaptrm --version"

# make_tree DIR: a small tree, two levels deep, 60 files.
make_tree() {
	mkdir -p "$1/a/b" "$1/c"
	(cd "$1" && touch a/f{1..20} a/b/g{1..20} c/h{1..20})
}
expect_gone() { [ ! -e "$1" ] || fail "$2 left $1 behind"; }

make_tree "$work/t1"
/usr/bin/adaptrm -r "$work/t1" || fail "adaptrm -r exited $?"
expect_gone "$work/t1" "adaptrm -r"
say "adaptrm -r deleted a tree"

if [ -e /sys/kernel/btf/vmlinux ] || [ "${ADAPTRM_REQUIRE_BPF:-0}" = 1 ]; then
	make_tree "$work/t2"
	/usr/bin/adaptrm --trace -rf "$work/t2" >"$work/trace.txt" 2>&1 ||
		{ cat "$work/trace.txt" >&2; fail "adaptrm --trace -rf"; }
	expect_gone "$work/t2" "adaptrm --trace -rf"
	if ! { grep -q '^Verdict' "$work/trace.txt" && grep -q ' unlinkat$' "$work/trace.txt"; }; then
		cat "$work/trace.txt" >&2
		fail "--trace printed no verdict or no unlinkat row"
	fi
	say "adaptrm --trace -rf deleted a tree and reported on it"
else
	say "no BTF: --trace skipped"
fi

[ "$(man -w adaptrm)" = /usr/share/man/man1/adaptrm.1.gz ] || fail "man -w adaptrm"
if grep -q '/adaptrm-mpi\.1\.gz$' "$work/files"; then
	[ "$(man -w adaptrm-mpi)" = /usr/share/man/man1/adaptrm-mpi.1.gz ] || fail "man -w adaptrm-mpi"
fi
if grep -q '/completions/adaptrm-mpi$' "$work/files"; then
	bash -c 'source /usr/share/bash-completion/completions/adaptrm-mpi && complete -p adaptrm-mpi' >/dev/null ||
		fail "the completion file does not define a completion for adaptrm-mpi"
fi
bash -c 'source /usr/share/bash-completion/completions/adaptrm && complete -p adaptrm' >/dev/null ||
	fail "the completion file does not define a completion for adaptrm"
say "man page and completion found"

make_tree "$work/t3"
# Open MPI's single copy between ranks needs ptrace rights that containers
# often lack: the ranks copy through shared memory instead.
OMPI_MCA_btl_vader_single_copy_mechanism=none \
	timeout 300 mpirun --allow-run-as-root --oversubscribe -n 2 \
	/usr/bin/adaptrm-mpi -rf "$work/t3" >"$work/mpi.txt" 2>&1 ||
	{ cat "$work/mpi.txt" >&2; fail "mpirun -n 2 adaptrm-mpi -rf"; }
expect_gone "$work/t3" "adaptrm-mpi on 2 ranks"
say "adaptrm-mpi on 2 ranks deleted a tree"

apt_get remove "${PKGS[@]}" >"$work/apt.log" 2>&1 ||
	{ cat "$work/apt.log" >&2; fail "apt-get remove"; }
while read -r f; do
	if [ -e "$f" ] || [ -L "$f" ]; then fail "$f is left after apt-get remove"; fi
done <"$work/files"
say "removed; no file left behind"

# Purge takes root's state directory with it, where the install made none
# before (another run's state on this machine is not this test's to judge).
if [ "$state_before" = 0 ]; then
	# dpkg, not apt-get: a package installed from a file and removed is
	# in no repository apt knows (one without conffiles is gone already)
	dpkg --purge "${PKGS[@]}" >"$work/apt.log" 2>&1 ||
		{ cat "$work/apt.log" >&2; fail "dpkg --purge"; }
	[ ! -e /var/lib/adaptrm ] || fail "/var/lib/adaptrm is left after dpkg --purge"
	say "purged; /var/lib/adaptrm gone"
fi
