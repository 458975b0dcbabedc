#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Build the Debian packages (debian/) from a copy of this checkout, as
# dpkg-buildpackage writes them to the parent of the tree it builds and leaves
# build files in it, then check them with lintian when it is installed.
#   scripts/build-deb.sh OUTDIR     the .deb, .changes and .buildinfo files go to OUTDIR
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
	echo "build-deb: $*" >&2
	exit 1
}

[ $# -eq 1 ] || die "usage: scripts/build-deb.sh OUTDIR"
out=$1
mkdir -p "$out"
command -v dpkg-buildpackage >/dev/null || die "no dpkg-buildpackage (scripts/install-deps.sh --deb)"
command -v dh >/dev/null || die "no debhelper (scripts/install-deps.sh --deb)"

# The package's version is the program's: a new release needs a changelog entry.
deb_version=$(dpkg-parsechangelog -S Version)
version=$(sed -n 's/^#define ADAPTRM_VERSION "\(.*\)"$/\1/p' user/lib/version.h)
[ "$deb_version" = "$version" ] ||
	die "debian/changelog is at $deb_version, user/lib/version.h at $version: add a changelog entry for $version"

work=$(mktemp -d /tmp/adaptrm-deb.XXXXXX)
trap 'rm -rf "$work"' EXIT

# The files git tracks or would track: no build outputs, no .git.
mkdir "$work/adaptrm"
git ls-files -z --cached --others --exclude-standard |
	tar --null -cf - -T - | tar -xf - -C "$work/adaptrm"

if ! (cd "$work/adaptrm" && dpkg-buildpackage -us -uc -b) >"$work/build.log" 2>&1; then
	tail -n 40 "$work/build.log" >&2
	die "dpkg-buildpackage failed (its last lines above)"
fi

shopt -s nullglob
files=("$work"/*.deb "$work"/*.changes "$work"/*.buildinfo)
mv "${files[@]}" "$out"/
for pkg in adaptrm adaptrm-mpi adaptrm-dbgsym adaptrm-mpi-dbgsym; do
	debs=("$out/${pkg}"_*.deb)
	[ ${#debs[@]} -gt 0 ] || die "no ${pkg} package in $out"
done
echo "build-deb: packages in $out:"
(cd "$out" && ls -- *.deb)

if command -v lintian >/dev/null; then
	changes=("$out"/adaptrm_*.changes)
	lintian --pedantic --fail-on error,warning,pedantic "${changes[@]}" ||
		die "lintian reported the tags above"
	echo "build-deb: lintian clean"
else
	echo "build-deb: no lintian, the packages were not checked" >&2
fi
