#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-3.0-or-later
# Build a small demo tree (100 dirs x 2000 files) and delete it with adaptrm,
# showing the live progress line and the --stats summary.
set -euo pipefail
cd "$(dirname "$0")/.."
demo=$(mktemp -d "${TMPDIR:-/tmp}/adaptrm-demo.XXXXXX")
trap 'rm -rf "$demo"' EXIT
echo "demo: building $demo/tree (100 directories x 2000 files)..."
# One process that makes every file with one mknod, rather than a touch
# of every name.
python3 tests/tools/mktree.py "$demo/tree" tree 100 2000
echo "demo: ./adaptrm -rf --progress --stats $demo/tree"
./adaptrm -rf --progress --stats "$demo/tree"
[ ! -e "$demo/tree" ] && echo "demo: tree removed"
