# SPDX-License-Identifier: GPL-3.0-or-later
# adaptrm-mpi under a real mpirun: 4 ranks oversubscribed on this machine,
# each an engine of its own. Every rank's exit status is kept (rc.RANK).

need_mpi() {
	MPI_BIN=$(dirname "$ADAPTRM")/adaptrm-mpi
	[ -x "$MPI_BIN" ] || skip "adaptrm-mpi is not built (no Open MPI)"
	command -v mpirun >/dev/null || skip "no mpirun"
}

# Each rank runs under sh, which keeps its exit status in rc.RANK.
# shellcheck disable=SC2016 # expanded by each rank's shell
RANK_SH='"$0" "$@"; echo $? >"rc.$OMPI_COMM_WORLD_RANK"'

# mpi_rm NP ARGS...: adaptrm-mpi ARGS on NP ranks; rank R's exit status in
# rc.R. As root Open MPI wants its allow-run-as-root variables. A job that
# does not end gets SIGUSR1 first (mpirun passes it on: each rank says on
# stderr what it waits for and holds), then the kill.
mpi_rm() {
	local np=$1
	shift
	rm -f rc.*
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1 \
		timeout -s USR1 -k 30 600 mpirun --oversubscribe -np "$np" \
		sh -c "$RANK_SH" "$MPI_BIN" "$@"
}

expect_ranks() { # NP STATUS
	local r
	for r in $(seq 0 $(($1 - 1))); do
		expect_eq "$(cat "rc.$r" 2>/dev/null)" "$2" "rank $r's exit status"
	done
}

# spread_case NP ARGS...: delete t with adaptrm-mpi, check it is gone, every
# rank said 0, the sentinel is unchanged and --stats counted N entries.
spread_case() {
	local np=$1 n=$2
	shift 2
	make_sentinel keep
	local before
	before=$(sentinel_sum keep)
	mpi_rm "$np" -rf --stats "$@" t 2>err || { cat err >&2; fail "mpirun failed"; }
	expect_gone t
	expect_ranks "$np" 0
	expect_eq "$(sentinel_sum keep)" "$before" "sentinel changed"
	local got
	got=$(sed -n 's/^removed: \([0-9]*\) files, \([0-9]*\) directories.*/\1 \2/p' err)
	expect_eq "$(echo "$got" | awk '{print $1 + $2}')" "$n" "entries counted over the ranks"
}

test_mpi_flat_1m() {
	need_mpi
	make_flat t 1000000
	spread_case 4 1000001
}

test_mpi_tree_1000x1000() {
	need_mpi
	make_tree t 1000 1000
	spread_case 4 1001001
	grep -q '^ranks: 4 ' err || fail "no ranks line in --stats"
}

test_mpi_chain_deeper_than_path_max_with_forced_steals() {
	need_mpi
	# 600 levels of 20-byte names: a 12,600-byte path
	python3 - <<'EOF' || fail "cannot build the chain"
import os
fd = os.open(".", os.O_RDONLY | os.O_DIRECTORY)
os.mkdir("t", dir_fd=fd)
cur = os.open("t", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
for i in range(600):
    name = "level%015d" % i
    os.mkdir(name, dir_fd=cur)
    open(os.path.join("/proc/self/fd/%d" % cur, "file"), "w").close() if i % 50 == 0 else None
    nxt = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=cur)
    os.close(cur)
    cur = nxt
EOF
	ADAPTRM_DIST_EAGER=1 spread_case 4 $((1 + 600 + 12))
}

test_mpi_random_fanout_with_forced_steals() {
	need_mpi
	python3 - <<'EOF' || fail "cannot build the tree"
import os, random
random.seed(20)
def grow(path, depth):
    os.mkdir(path)
    for f in range(random.randint(0, 30)):
        open(os.path.join(path, "f%d" % f), "w").close()
    if depth < 6:
        for d in range(random.choice([0, 1, 2, 3, 5, 8])):
            grow(os.path.join(path, "d%d" % d), depth + 1)
grow("t", 0)
EOF
	local n
	n=$(find t | wc -l)
	ADAPTRM_DIST_EAGER=1 spread_case 4 "$n"
	grep -Eq '^ranks: 4 \([1-9][0-9]* donations' err || fail "nothing was stolen: $(grep ranks: err)"
}

test_mpi_undeletable_entry_fails_every_rank() {
	need_mpi
	need_root
	make_tree t 50 50
	mkdir t/d7/busy
	mount -t tmpfs -o size=1m none t/d7/busy || skip "cannot mount tmpfs"
	on_exit umount -l "$PWD/t/d7/busy"
	ADAPTRM_DIST_EAGER=1 mpi_rm 4 -rf t 2>err || true
	expect_ranks 4 1
	grep -q "cannot remove 't/d7/busy'" err || fail "no message for the busy mount: $(cat err)"
	expect_exists t/d7/busy
	expect_gone t/d8
	[ "$(find t | wc -l)" = 3 ] || fail "more than the ancestors stayed: $(find t)"
}

# Each rank reaches the tree by its own path (a bind mount per rank, as each
# node is its own client): mpirun's MPMD form gives each its operand.
test_mpi_ext4_each_rank_its_own_mount() {
	need_mpi
	need_root
	mount_fs ext4 m 1G || skip "cannot mount ext4"
	make_tree m/t 200 200
	local r
	for r in 1 2 3; do
		mkdir -p "b$r"
		mount --bind m "b$r" || skip "cannot bind-mount"
		on_exit umount -l "$PWD/b$r"
	done
	rm -f rc.*
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		OMPI_MCA_btl_vader_single_copy_mechanism=none timeout 600 mpirun --oversubscribe \
		-np 1 sh -c "$RANK_SH" "$MPI_BIN" -rf --stats m/t : \
		-np 1 sh -c "$RANK_SH" "$MPI_BIN" -rf b1/t : \
		-np 1 sh -c "$RANK_SH" "$MPI_BIN" -rf b2/t : \
		-np 1 sh -c "$RANK_SH" "$MPI_BIN" -rf b3/t 2>err ||
		{ cat err >&2; fail "mpirun failed"; }
	expect_ranks 4 0
	expect_gone m/t
	grep -q '^removed: 40000 files, 201 directories' err || fail "counts: $(grep removed: err)"
}

test_mpi_usage_errors() {
	need_mpi
	mkdir t
	mpi_rm 2 -ri t 2>err || true
	expect_ranks 2 1
	grep -q 'not supported with MPI' err || fail "no message for -i: $(cat err)"
	expect_exists t
	mpi_rm 2 -rf missing/x 2>err
	expect_ranks 2 0
	mpi_rm 2 -r missing/x 2>err || true
	expect_ranks 2 1
	grep -q "cannot remove 'missing/x'" err || fail "no message for a missing operand"
}

# --max-ops is a total over the ranks: the run completes under it (its pace
# is the benchmark's to measure, not a test's), and bad values are usage errors.
test_mpi_max_ops_and_the_budget() {
	need_mpi
	make_tree t 20 50
	mpi_rm 3 -rf --max-ops=100000 --explain t 2>err || { cat err >&2; fail "mpirun failed"; }
	expect_ranks 3 0
	expect_gone t
	mkdir t
	mpi_rm 2 -rf --max-ops=0 t 2>err || true
	expect_ranks 2 1
	grep -qE "invalid argument ['‘]0['’] for ['‘]--max-ops['’]" err || fail "no usage error: $(cat err)"
	expect_exists t
}

# --from-list over the ranks: paths dealt by parent directory, every third
# file goes and nothing else; --prune-empty removes the directories left
# empty (a listed one too) and keeps the list's common ancestor.
test_mpi_from_list_and_prune_empty() {
	need_mpi
	make_tree t 60 30
	mkdir -p t/gone/sub t/kept
	touch t/gone/sub/x t/kept/y
	find t -type f ! -path 't/kept/*' | awk 'NR % 3 == 0' >list
	printf '%s\n' t/gone/sub/x t/gone/sub >>list
	find t -type f | LC_ALL=C sort >before
	mpi_rm 4 --from-list list --prune-empty --stats 2>err || { cat err >&2; fail "mpirun failed"; }
	expect_ranks 4 0
	LC_ALL=C sort list | grep -v '^t/gone/sub$' >listed
	find t -type f | LC_ALL=C sort >after
	expect_eq "$(comm -23 before listed | md5sum)" "$(md5sum <after)" "what is left"
	expect_gone t/gone
	expect_exists t/kept/y
	expect_exists t
	grep -q "^removed: $(($(wc -l <list) - 1)) files, 2 directories" err ||
		fail "counts: $(grep removed: err)"
}

test_mpi_from_list_refuses_a_symlink_on_every_rank() {
	need_mpi
	mkdir -p t/real outside
	touch t/real/f outside/precious
	ln -s ../outside t/link
	printf '%s\0' t/real/f t/link/precious >list
	mpi_rm 3 --from-list list 2>err || true
	expect_ranks 3 1
	expect_exists outside/precious
	expect_gone t/real/f
	grep -q "symbolic link" err || fail "no message: $(cat err)"
	mpi_rm 2 -r --from-list list 2>err || true
	expect_ranks 2 1
	mpi_rm 2 --from-list list t 2>err || true
	expect_ranks 2 1
}

# Rank 0's progress line under mpirun (mpirun's stderr a file here, so only
# with --progress) counts every rank, and a rank with work
# in hand is busy even when one of its workers waits for more: while two
# ranks delete (forced steals, paced by --max-ops), no line says none is
# busy and some say both are.
test_mpi_progress_counts_the_ranks_busy() {
	need_mpi
	make_tree t 40 200
	ADAPTRM_DIST_EAGER=1 mpi_rm 2 -rf --progress --threads=4 --max-ops=2000 t 2>err ||
		{ cat err >&2; fail "mpirun failed"; }
	expect_gone t
	expect_ranks 2 0
	tr '\r' '\n' <err | sed 's/ *$//' | grep ' removed ' >lines || fail "no progress line: $(cat err)"
	grep -q ' 2/2 ranks busy$' lines || fail "never both ranks busy: $(sort lines | uniq -c)"
	expect_eq "$(grep -c ' 0/2 ranks busy$' lines)" 0 "lines with no rank busy: $(grep ' 0/2 ' lines)"
}

# On a terminal (here a pseudo-terminal, one rank without mpirun) rank 0
# shows the line by default, and a delete of seconds ends with the summary.
test_mpi_progress_by_default_on_a_terminal() {
	need_mpi
	make_tree t 20 200
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 timeout 600 \
		python3 "$E2E_REPO/tests/tools/ptyterm.py" --cols 100 --rows-out rows -- \
		"$MPI_BIN" -rf --max-ops=1000 t 2>err || fail "$(cat err)"
	expect_gone t
	grep -Eq '^removed 4000 files, 21 directories, in [0-9.]+ s' rows || fail "screen: $(cat rows)"
}

# Under mpirun rank 0's stderr is a pipe, yet the user sees a terminal:
# mpirun's own stderr (here a pseudo-terminal 60 columns wide; ptyterm fails
# on any line wider). The line shows without --progress, as wide as that
# terminal; a delete paced to seconds ends with the summary, which is there
# only if the line was drawn. With mpirun's stderr in a file, no line.
test_mpi_progress_by_default_when_mpirun_is_on_a_terminal() {
	need_mpi
	make_tree t 40 200
	OMPI_MCA_btl_vader_single_copy_mechanism=none timeout 600 \
		python3 "$E2E_REPO/tests/tools/ptyterm.py" --cols 60 --rows-out rows -- \
		mpirun --allow-run-as-root --oversubscribe -n 2 "$MPI_BIN" -rf --max-ops=2000 t \
		2>err || fail "$(cat err)"
	expect_gone t
	grep -Eq '^removed 8000 files, 41 directories, in [0-9.]+ s' rows ||
		fail "no summary, so no line: $(cat rows)"
	make_tree t 40 200
	# shellcheck disable=SC2016 # expanded by the inner shell
	OMPI_MCA_btl_vader_single_copy_mechanism=none timeout 600 \
		python3 "$E2E_REPO/tests/tools/ptyterm.py" --cols 60 --rows-out rows -- \
		sh -c 'mpirun --allow-run-as-root --oversubscribe -n 2 "$0" -rf --max-ops=2000 t 2>err' \
		"$MPI_BIN" 2>ptyerr || fail "$(cat ptyerr err)"
	expect_gone t
	[ ! -s err ] || fail "output with mpirun's stderr in a file: $(od -c err | head)"
	[ ! -s rows ] || fail "output on the terminal: $(cat rows)"
}

# rank_pid MARK RANK: the pid of rank RANK of the job whose environment
# holds ADAPTRM_TEST_JOB=MARK (only this test's job, not any other).
rank_pid() {
	local p
	for p in $(pgrep -x adaptrm-mpi); do
		tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "ADAPTRM_TEST_JOB=$1" || continue
		if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$2"; then
			echo "$p"
		fi
	done
}

# wait_for_ranks MARK: rank 1's pid once ranks 0 and 1 of the job marked
# MARK are running (30 s at most; fails if they never are).
wait_for_ranks() {
	local victim _
	for _ in $(seq 300); do
		victim=$(rank_pid "$1" 1)
		[ -n "$victim" ] && [ -n "$(rank_pid "$1" 0)" ] && echo "$victim" && return 0
		sleep 0.1
	done
	return 1
}

# A rank killed mid-delete (a node lost): the job ends with an error, the
# rest of the tree left, and no rank waits forever for the dead one.
test_mpi_a_rank_killed_mid_delete_ends_the_job_with_an_error() {
	need_mpi
	make_tree t 20 1000
	local mark=$$.$RANDOM victim="" rc=0 _
	# paced, so that the delete outlasts the kill
	ADAPTRM_TEST_JOB=$mark mpi_rm 2 -rf --max-ops=1000 t 2>err &
	local job=$!
	victim=$(wait_for_ranks "$mark") || fail "rank 1 never started: $(cat err)"
	kill -9 "$victim"
	wait "$job" || rc=$?
	[ "$rc" != 0 ] || fail "the job said all went well with a rank killed"
	[ "$rc" != 124 ] || fail "the job hung with a rank killed (mpirun timed out)"
	[ -z "$(rank_pid "$mark" 0)" ] || fail "rank 0 outlived the job"
	expect_exists t
}

# A rank frozen mid-delete (SIGSTOP: a launcher that sees nothing wrong): the
# others end the job with an error after their silence limit, not waiting
# forever for its part of the sums.
test_mpi_a_frozen_rank_ends_the_job_with_an_error() {
	need_mpi
	make_tree t 20 1000
	local mark=$$.$RANDOM victim="" rc=0 _
	# no sh around each rank here: mpirun ends the ranks it started, and a
	# frozen grandchild would hold its output open
	ADAPTRM_TEST_JOB=$mark OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
		OMPI_MCA_btl_vader_single_copy_mechanism=none \
		timeout 600 mpirun --oversubscribe -np 2 "$MPI_BIN" -rf --max-ops=1000 t 2>err &
	local job=$!
	victim=$(wait_for_ranks "$mark") || fail "rank 1 never started: $(cat err)"
	# mid-delete: past MPI_Init (a rank frozen inside it stalls MPI's own
	# start, before adaptrm runs), once something is removed
	for _ in $(seq 600); do
		[ "$(find t -type f | wc -l)" -lt 20000 ] && break
		sleep 0.1
	done
	kill -STOP "$victim"
	on_exit kill -KILL "$victim"
	wait "$job" || rc=$?
	[ "$rc" != 0 ] || fail "the job said all went well with a rank frozen"
	[ "$rc" != 124 ] || fail "the job hung with a rank frozen (mpirun timed out)"
	grep -q "no word from some rank" err || fail "no message for the frozen rank: $(cat err)"
	expect_exists t
}
