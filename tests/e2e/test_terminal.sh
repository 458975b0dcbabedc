# SPDX-License-Identifier: GPL-3.0-or-later
# What a user sees on a terminal: the progress line in a pseudo-terminal
# (tests/tools/ptyterm.py reads the output as a terminal does), the summary
# after a long delete, and the growth of the free space where it can be known.

PTYTERM=$E2E_REPO/tests/tools/ptyterm.py

# The line fits 40 columns, then 30 and 120 after resizes during the run,
# never wraps, and leaves no stale rows: at the end the screen holds the
# summary line alone. --max-ops paces the delete so that it lasts seconds
# (4021 entries at 1000 a second), long enough for the resizes and the
# summary.
test_terminal_progress_fits_the_width_and_ends_with_a_summary() {
	make_tree t 20 200
	python3 "$PTYTERM" --cols 40 --resize 30 --resize 120 --rows-out rows -- \
		"$ADAPTRM" -rf --progress --max-ops=1000 t 2>err || fail "$(cat err)"
	expect_gone t
	expect_eq "$(wc -l <rows)" 1 "rows left on the screen: $(cat rows)"
	grep -Eq '^removed 4000 files, 21 directories, in [0-9.]+ s, [0-9]+/s(, free space grew by [0-9.]+ [KMG]?i?B)?$' rows ||
		fail "no summary line: $(cat rows)"
}

# A terminal that reflows wraps the wider line onto more rows when it
# narrows: the next line clears them, and at the end the screen holds the
# summary alone (the line is wider than 30 columns at 100).
test_terminal_narrowed_reflowing_terminal_keeps_no_fragment() {
	make_tree t 20 200
	python3 "$PTYTERM" --reflow --cols 100 --resize 30 --rows-out rows -- \
		"$ADAPTRM" -rf --progress --max-ops=1000 t 2>err || fail "$(cat err)"
	expect_gone t
	expect_eq "$(wc -l <rows)" 1 "rows left on the screen: $(cat rows)"
	grep -Eq '^removed 4000 files,' rows || fail "no summary line: $(cat rows)"
}

# A narrow terminal drops the line's least important fields, and the
# summary's, rather than wrapping.
test_terminal_narrow_terminal_drops_fields() {
	make_tree t 20 200
	python3 "$PTYTERM" --cols 24 --rows-out rows -- "$ADAPTRM" -rf --progress --max-ops=1000 t \
		2>err || fail "$(cat err)"
	expect_eq "$(wc -l <rows)" 1 "rows left on the screen: $(cat rows)"
	grep -Eq '^removed 4000 files,' rows || fail "summary line: $(cat rows)"
}

# A short delete clears its line and prints nothing more; --stats (which
# says it all) replaces the summary line.
test_terminal_short_delete_leaves_a_clean_screen() {
	make_tree t 2 20
	python3 "$PTYTERM" --cols 40 --rows-out rows -- "$ADAPTRM" -rf --progress t 2>err ||
		fail "$(cat err)"
	expect_eq "$(cat rows)" "" "the screen after a short delete"
	make_tree t 20 200
	python3 "$PTYTERM" --cols 200 --rows-out rows -- "$ADAPTRM" -rf --progress --stats \
		--max-ops=1000 t 2>err || fail "$(cat err)"
	grep -q '^removed: 4000 files, 21 directories' rows || fail "no --stats: $(cat rows)"
	grep -q '^removed 4000 files,' rows && fail "a summary line beside --stats: $(cat rows)"
	true
}

# On FUSE, statfs reports the store behind the mount, which others fill and
# free meanwhile (here a writer on the backing filesystem): the free space's
# change is "not known" in --stats and absent from the progress line.
test_terminal_freed_not_shown_on_fuse() {
	need_root
	mount_slowfs mnt 200
	make_flat "$SLOWFS_BACKING/flat" 300
	(while :; do
		head -c 4M /dev/zero >"$SLOWFS_BACKING/w" && rm -f "$SLOWFS_BACKING/w"
	done) &
	local writer=$!
	on_exit "kill $writer"
	python3 "$PTYTERM" --cols 100 --rows-out rows -- "$ADAPTRM" -rf --stats --progress mnt/flat \
		2>err || fail "$(cat err)"
	kill "$writer"
	expect_gone "$SLOWFS_BACKING/flat"
	grep -Eq '^free space: not known on .*/mnt \(fuse\)$' rows || fail "free space line: $(cat rows)"
	expect_eq "$(grep -c 'free space [+g]' rows)" 0 "a size on the line: $(cat rows)"
	# and where it can be known (the scratch tmpfs) it is counted
	make_flat flat 10
	"$ADAPTRM" -rf --stats flat 2>err || fail "$(cat err)"
	grep -Eq '^free space: (grew by [0-9.]+ [KMG]?i?B|did not grow) on .* \(tmpfs\)$' err ||
		fail "free space on tmpfs: $(cat err)"
}

# An interrupted delete clears its line and says its own counts: no summary
# line. The delete is paced to last 8 s or more and is interrupted after
# 3.5 s, past the summary's threshold. The terminal is wide enough for the
# message, which names the program by its path, to stay on one row.
test_terminal_interrupted_delete_has_no_summary() {
	make_tree t 40 200
	# shellcheck disable=SC2016 # expanded by the inner shell
	python3 "$PTYTERM" --cols 400 --rows-out rows -- sh -c \
		'"$0" -rf --progress --max-ops=1000 t & p=$!; sleep 3.5; kill -INT $p; wait $p' \
		"$ADAPTRM" 2>err && fail "not interrupted"
	grep -q 'exit status 130' err || fail "$(cat err)"
	expect_eq "$(wc -l <rows)" 1 "rows left on the screen: $(cat rows)"
	grep -q 'interrupted by SIGINT: removed [0-9]* files' rows || fail "screen: $(cat rows)"
}
