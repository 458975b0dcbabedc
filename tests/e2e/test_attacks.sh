# SPDX-License-Identifier: GPL-3.0-or-later
# Attacks: while adaptrm deletes an operand tree, a race driver
# (tests/tools/race.c) keeps rearranging it so that its paths lead outside,
# into a victim tree and a fake root next to it: directories replaced by
# symlinks, RENAME_EXCHANGEd with symlinks, moved into the victim, the victim
# bind-mounted over them. Each mode runs at --threads=1, 2, 8 and 64, with
# the fd limit as it is and at 24 (the fd cache re-opens evicted directories
# by verified paths). The victim's manifest (type, mode, owner, size, content
# hash, link target of every entry) must never change; the operand may partly
# remain and adaptrm may fail, but only with GNU-style messages, never by a
# crash or a hang, and exit 0 only if the operand is gone.
#
# ATTACK_ROUNDS (default 2) repeats each configuration; raise it by hand
# (ATTACK_ROUNDS=50) for a long campaign. ATTACK_RM=rm runs the same attacks
# against another rm (GNU rm) for comparison, with ATTACK_RM_ARGS (default
# -rf) as its options: only the victim is checked then, and a change is
# counted, not fatal at once.

RACE=${TOOLS:-}/race
ATTACK_ROUNDS=${ATTACK_ROUNDS:-2}
ATTACK_THREADS=${ATTACK_THREADS:-"1 2 8 64"}
ATTACK_RM=${ATTACK_RM:-}
# the tree: WIDTH directories per directory, DEPTH levels, FILES files in
# each (4 5 8: 1,365 directories, 10,920 files)
ATTACK_SHAPE=${ATTACK_SHAPE:-"4 5 8"}

RACE_PID=
ATTACK_FAILS=0
ATTACK_RUNS=0

need_race() {
	[ -x "$RACE" ] || skip "race is not built (make tools)"
}

# Unmount whatever is mounted below DIR (the driver's binds, the bound
# tmpfs), innermost first, lazily.
unmount_below() {
	local dir=$1 m
	# mountinfo field 5 is the mount point, with spaces etc. octal-escaped
	# (the scratch paths here have none)
	awk -v p="$dir/" 'index($5, p) == 1 { print $5 }' /proc/self/mountinfo | sort -r |
		while IFS= read -r m; do umount -l "$m" 2>/dev/null; done
	return 0
}

# At exit, even after a failure: stop the driver by its pid, unmount.
attack_cleanup() {
	if [ -n "$RACE_PID" ]; then
		kill "$RACE_PID" 2>/dev/null
		wait "$RACE_PID" 2>/dev/null
		RACE_PID=
	fi
	[ -z "${ATTACK_BASE:-}" ] || unmount_below "$ATTACK_BASE"
}

# attack_begin [BASE]: the runs happen in BASE/w (default $SCRATCH).
attack_begin() {
	need_race
	ATTACK_BASE=$(cd "${1:-$SCRATCH}" && pwd)
	on_exit attack_cleanup
}

manifest() { # the outside as it must stay; $1: also list the bound tree's contents
	local args=(--omit=op --exclude=outside/victim/drop)
	[ "$1" = all ] || args+=(--exclude=outside/victim/bound)
	"$RACE" manifest "$ATTACK_BASE/w" "${args[@]}"
}

# attack_once MODE THREADS FDLIMIT [--one-file-system]: one delete under
# attack; the checks fail the test at once, after cleaning up.
attack_once() {
	local mode=$1 threads=$2 fds=$3 ofs=${4:-} w=$ATTACK_BASE/w
	unmount_below "$w"
	rm -rf "$w"
	mkdir "$w" || fail "cannot make $w"
	local scope=outside
	if [ "$mode" = bind ]; then
		# victim/bound is a filesystem of its own: with --one-file-system a
		# bind of it is a different device and must be skipped, whole
		mkdir -p "$w/outside/victim/bound"
		mount -t tmpfs -o size=16M tmpfs "$w/outside/victim/bound" || fail "cannot mount tmpfs"
		[ -n "$ofs" ] && scope=all
	fi
	# shellcheck disable=SC2086 # WIDTH DEPTH FILES
	"$RACE" setup "$w/op" "$w/outside" $ATTACK_SHAPE || fail "race setup failed"
	echo keep >"$w/keep"
	local before after
	before=$(manifest $scope) || fail "manifest failed"

	rm -f "$w.ready"
	"$RACE" "$mode" "$w/op" "$w/outside" --ready="$w.ready" 2>"$w.race" &
	RACE_PID=$!
	local i
	for ((i = 0; i < 500; i++)); do
		[ -e "$w.ready" ] && break
		kill -0 "$RACE_PID" 2>/dev/null || break
		sleep 0.01
	done
	[ -e "$w.ready" ] || fail "the race driver did not start: $(cat "$w.race")"

	local rc=0 rm=${ATTACK_RM:-$ADAPTRM} opts
	read -ra opts <<<"${ATTACK_RM_ARGS:--rf}"
	[ -z "$ATTACK_RM" ] && opts+=(--threads="$threads")
	[ -n "$ofs" ] && opts+=(--one-file-system)
	[ -n "${ATTACK_BACKGROUND:-}" ] && opts+=(--background)
	if [ "$fds" = - ]; then
		timeout 120 "$rm" "${opts[@]}" "$w/op" 2>"$w.err" || rc=$?
	else
		(ulimit -n "$fds" && exec timeout 120 "$rm" "${opts[@]}" "$w/op") 2>"$w.err" || rc=$?
	fi
	# --background: the checks once the deleter is done with what it held
	# (what it must leave, it leaves: --wait then gives up, with a message).
	[ -z "${ATTACK_BACKGROUND:-}" ] || timeout 120 "$ADAPTRM" --wait "$w/op" 2>/dev/null || true
	kill "$RACE_PID" 2>/dev/null || true # it stops by itself once the operand is gone
	local drc=0
	wait "$RACE_PID" || drc=$?
	RACE_PID=
	unmount_below "$w/op" # binds the driver left (the bound tmpfs stays)
	after=$(manifest $scope) || fail "manifest failed"

	local what="$mode --threads=$threads fds=$fds $ofs"
	ATTACK_RUNS=$((ATTACK_RUNS + 1))
	local left=0
	[ -e "$w/op" ] && left=$(find "$w/op" 2>/dev/null | wc -l)
	echo "$what: exit $rc, $left left, $(wc -l <"$w.err") messages, $(tail -1 "$w.race")"
	if [ "$before" != "$after" ]; then
		ATTACK_FAILS=$((ATTACK_FAILS + 1))
		echo "victim changed ($what):"
		diff <(echo "$before") <(echo "$after") | head -20
		[ -n "$ATTACK_RM" ] || fail "the victim changed under $what"
	fi
	[ -n "$ATTACK_RM" ] && return 0
	[ "$(cat "$w/keep")" = keep ] || fail "the operand's sibling changed ($what)"
	[ $rc = 124 ] && fail "adaptrm hung ($what)"
	[ $rc = 0 ] || [ $rc = 1 ] || fail "adaptrm exit $rc ($what): $(tail -5 "$w.err")"
	[ $rc = 1 ] || [ ! -e "$w/op" ] || fail "exit 0 but the operand remains ($what)"
	[ $drc = 0 ] || fail "the race driver failed ($what): $(cat "$w.race")"
	local bad
	bad=$(grep -v "^$ADAPTRM: " "$w.err" | head -3)
	[ -z "$bad" ] || fail "not a GNU-style message ($what): $bad"
	if [ $rc = 1 ] && ! [ -s "$w.err" ]; then fail "exit 1 without a message ($what)"; fi
	return 0
}

# attack_matrix MODE [--one-file-system]: every thread count, with and
# without the small fd limit, ATTACK_ROUNDS times.
attack_matrix() {
	local mode=$1 ofs=${2:-} round threads fds
	for ((round = 1; round <= ATTACK_ROUNDS; round++)); do
		for threads in $ATTACK_THREADS; do
			for fds in - 24; do
				attack_once "$mode" "$threads" "$fds" "$ofs"
			done
		done
	done
	echo "$mode $ofs: $ATTACK_RUNS runs, victim changed in $ATTACK_FAILS"
	[ $ATTACK_FAILS = 0 ] || fail "the victim changed in $ATTACK_FAILS of $ATTACK_RUNS runs"
}

test_attack_symlink_victim() { attack_begin; attack_matrix symlink-victim; }
test_attack_symlink_root() { attack_begin; attack_matrix symlink-root; }
test_attack_exchange() { attack_begin; attack_matrix exchange; }
test_attack_move_into_victim() { attack_begin; attack_matrix move; }
test_attack_bind() { need_root; attack_begin; attack_matrix bind; }
test_attack_bind_one_file_system() { need_root; attack_begin; attack_matrix bind --one-file-system; }

# The same races against --background: the operand is renamed into the
# holding place at the scratch filesystem's root, and the deleter deletes it
# there while the driver keeps rearranging what it can still reach.
test_attack_background() {
	need_root
	attack_begin
	export XDG_STATE_HOME=$SCRATCH/state ATTACK_BACKGROUND=1
	local mode round
	for ((round = 1; round <= ATTACK_ROUNDS; round++)); do
		for mode in symlink-victim symlink-root exchange move bind; do
			attack_once "$mode" 2 -
		done
		attack_once bind 2 - --one-file-system
	done
	echo "background: $ATTACK_RUNS runs, victim changed in $ATTACK_FAILS"
	[ $ATTACK_FAILS = 0 ] || fail "the victim changed in $ATTACK_FAILS of $ATTACK_RUNS runs"
}

# The same on ext4 (real inode numbers, a different readdir order, and the
# operand on a filesystem of its own), fewer configurations.
test_attack_ext4() {
	need_root
	command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
	mount_fs ext4 fs 1G || skip "cannot mount ext4"
	attack_begin fs
	local mode threads round
	for ((round = 1; round <= ATTACK_ROUNDS; round++)); do
		for mode in symlink-victim exchange move bind; do
			for threads in 2 64; do
				attack_once "$mode" "$threads" -
				attack_once "$mode" "$threads" 24
			done
		done
		attack_once bind 8 24 --one-file-system
	done
	echo "ext4: $ATTACK_RUNS runs, victim changed in $ATTACK_FAILS"
	[ $ATTACK_FAILS = 0 ] || fail "the victim changed in $ATTACK_FAILS of $ATTACK_RUNS runs"
}

# delete_together TREE CMD...: each CMD (a command line, split on blanks)
# deletes TREE, all started at once: they wait on a pipe that is written
# only when every one of them runs. Each must exit 0 without a word on
# stderr (what another removed first is gone, not an error, under -f), and
# TREE must be gone.
delete_together() {
	local tree=$1 go=$SCRATCH/go.$$ k pids=() cmd
	shift
	rm -f "$go"
	mkfifo "$go"
	exec 3<>"$go"
	on_exit rm -f "$go"
	k=0
	for cmd in "$@"; do
		local argv
		read -ra argv <<<"$cmd"
		(
			exec 3>&-
			read -r _ <"$go"
			exec "${argv[@]}" "$tree"
		) 2>"$SCRATCH/together.$k" &
		pids+=($!)
		k=$((k + 1))
	done
	printf 'go\n%.0s' "$@" >&3
	local rc i=0 bad=
	for ((i = 0; i < k; i++)); do
		rc=0
		wait "${pids[$i]}" || rc=$?
		[ $rc = 0 ] || bad+=" [$i] exit $rc"
		[ -s "$SCRATCH/together.$i" ] && bad+=" [$i] said: $(head -2 "$SCRATCH/together.$i")"
	done
	exec 3>&-
	[ -z "$bad" ] || fail "deletes of one tree at once ($*):$bad"
	expect_gone "$tree"
}

# Overlapping cron jobs and parallel `make clean`s delete one tree twice at
# once: the directories one removes vanish under the other while it opens
# or reads them, and both must still succeed.
test_concurrent_deletes_of_one_tree() {
	local round threads
	for round in 1 2 3; do
		for threads in --threads=1 ""; do
			make_tree T 100 500
			delete_together T "$ADAPTRM -rf $threads" "$ADAPTRM -rf $threads"
			make_tree T 100 500
			delete_together T "$ADAPTRM -rf $threads" "$ADAPTRM -rf $threads" \
				"$ADAPTRM -rf $threads" "$ADAPTRM -rf $threads"
		done
	done
}

test_concurrent_delete_beside_gnu_rm() {
	local round threads
	for round in 1 2 3; do
		for threads in --threads=1 ""; do
			make_tree T 100 500
			delete_together T "$ADAPTRM -rf $threads" "rm -rf"
		done
	done
}

# The same on ext4, where a directory is read in several getdents64 calls
# and its blocks are freed as it empties.
test_concurrent_deletes_ext4() {
	need_root
	command -v mkfs.ext4 >/dev/null || skip "no mkfs.ext4"
	mount_fs ext4 fs 1G || skip "cannot mount ext4"
	local round
	for round in 1 2; do
		make_tree fs/T 100 500
		delete_together fs/T "$ADAPTRM -rf" "$ADAPTRM -rf --threads=1" "rm -rf"
	done
}
