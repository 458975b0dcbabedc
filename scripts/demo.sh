#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Build a small demo tree (100 dirs x 2000 files) and delete it with adaptrm,
# showing the live progress line and the --stats summary.
set -euo pipefail
cd "$(dirname "$0")/.."
demo=$(mktemp -d "${TMPDIR:-/tmp}/adaptrm-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
echo "demo: building $demo/tree (100 directories x 2000 files)..."
for d in $(seq 1 100); do
	mkdir -p "$demo/tree/dir$d"
	(cd "$demo/tree/dir$d" && seq -f "file%.0f" 1 2000 | xargs touch)
done
echo "demo: ./adaptrm -rf --progress --stats $demo/tree"
./adaptrm -rf --progress --stats "$demo/tree"
[ ! -e "$demo/tree" ] && echo "demo: tree removed"
