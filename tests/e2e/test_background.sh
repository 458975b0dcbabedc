# SPDX-License-Identifier: GPL-3.0-or-later
# --background: the operand is renamed into a holding place on its
# filesystem and adaptrm returns; a detached deleter deletes it. What is held
# survives a killed deleter (--resume or the next --background finish it),
# concurrent calls share one deleter, a mount below an operand or an unsafe
# holding place sends the operand to the foreground, and --pending and
# --wait see it. No test depends on timing: --wait is the bound.

# The deleters started here are killed at exit: the pid in a place's lock,
# if that process is a deleter of that place.
bg_kill_deleters() {
	local lock pid
	for lock in "$@"; do
		[ -f "$lock" ] || continue
		pid=$(cat "$lock" 2>/dev/null) || continue
		[ -n "$pid" ] && grep -qa -- ---background-deleter "/proc/$pid/cmdline" 2>/dev/null &&
			kill -9 "$pid"
	done
	return 0
}

# A fresh tmpfs at m with the sentinel tree keep, the state kept in the
# scratch directory; the deleters of its place killed at exit.
bg_setup() {
	need_root
	export XDG_STATE_HOME=$SCRATCH/state
	mount_fs tmpfs m "${1:-512M}" || skip "cannot mount tmpfs"
	make_sentinel m/keep
	on_exit bg_kill_deleters "$SCRATCH/m/.adaptrm-held-0/lock"
	KEEP_SUM=$(sentinel_sum m/keep)
}

# What the place in DIR holds besides its lock and status: nothing, once
# every held entry is gone.
bg_held() {
	find "$1" -mindepth 1 -maxdepth 1 ! -name lock ! -name status -printf '%f\n' 2>/dev/null
}

# The pid of the deleter --pending names for PLACE, polled a bounded number
# of times (empty if it finished first).
bg_deleter_pid() {
	local i pid
	for i in $(seq 1 100); do
		pid=$("$ADAPTRM" --pending | sed -n "s|^$1: deleter \([0-9]*\) running.*|\1|p")
		[ -n "$pid" ] && { echo "$pid"; return; }
		[ -z "$(bg_held "$1")" ] && return
		sleep 0.05
	done
}

# Until no deleter runs (polled a bounded number of times).
bg_until_idle() {
	local i
	for i in $(seq 1 200); do
		"$ADAPTRM" --pending | grep -q ": deleter [0-9]* running" || return 0
		sleep 0.05
	done
	fail "a deleter still runs"
}

# The deleter's log has a line matching the regular expression $1: its
# summary comes after --wait returns (the last record goes first), so it is
# polled for, a bounded number of times.
bg_log_has() {
	local i log=$XDG_STATE_HOME/adaptrm/deleter.log
	for i in $(seq 1 200); do
		grep -q -- "$1" "$log" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

test_background_returns_and_the_tree_goes() {
	bg_setup
	make_tree m/big 20 2000
	"$ADAPTRM" -rf --background m/big
	expect_gone m/big
	"$ADAPTRM" --wait "$SCRATCH/m/big"
	expect_eq "$(bg_held m/.adaptrm-held-0)" "" "the place is empty after --wait"
	expect_eq "$(sentinel_sum m/keep)" "$KEEP_SUM" "the sentinel tree changed"
	expect_eq "$(stat -c '%a %U' m/.adaptrm-held-0)" "700 root" "the place's mode and owner"
}

# --stats with every operand held: the front says what it held and prints no
# summary of a delete it did not do; the deleter's summary is in its log.
test_background_stats_go_to_the_log() {
	bg_setup
	make_tree m/t 5 20
	"$ADAPTRM" -rf --background --stats m/t >"$SCRATCH/out" 2>&1
	expect_eq "$(cat "$SCRATCH/out")" "held 'm/t' for the background deleter" "the front's output"
	"$ADAPTRM" --wait "$SCRATCH/m/t"
	bg_log_has "removed 100 files, 6 directories" ||
		fail "no summary in the log: $(cat "$XDG_STATE_HOME/adaptrm/deleter.log")"
}

# --wait right after --background --stats: whichever deleters start, the
# log has one summary, of the deleter that deleted, counting the whole tree
# (a deleter that never held the place's lock over records says nothing).
test_background_stats_then_wait_one_summary() {
	bg_setup
	local log=$XDG_STATE_HOME/adaptrm/deleter.log round
	for round in 1 2 3; do
		make_tree m/t 50 400
		rm -f "$log"
		"$ADAPTRM" -rf --background --stats m/t >/dev/null 2>&1
		"$ADAPTRM" --wait
		bg_log_has "removed 20000 files, 51 directories" || fail "round $round: $(cat "$log")"
		bg_until_idle
		expect_eq "$(grep -c ': removed [0-9]* files' "$log")" 1 "round $round: summaries: $(cat "$log")"
	done
}

test_background_without_it_is_the_foreground() {
	bg_setup
	make_tree m/t 5 50
	"$ADAPTRM" -rf m/t
	expect_gone m/t
	expect_gone m/.adaptrm-held-0
}

# A deleter killed with SIGKILL mid-way loses nothing: --resume, or the next
# --background on the filesystem, deletes everything held and nothing else.
test_background_killed_deleter_then_resume() {
	bg_setup
	local i pid
	for i in 1 2 3; do make_tree "m/t$i" 20 3000; done
	"$ADAPTRM" -rf --background --max-ops=2000 m/t1 m/t2 m/t3
	for i in 1 2 3; do expect_gone "m/t$i"; done
	pid=$(bg_deleter_pid "$SCRATCH/m/.adaptrm-held-0")
	[ -z "$pid" ] || kill -9 "$pid"
	"$ADAPTRM" --resume
	"$ADAPTRM" --wait "$SCRATCH/m"
	expect_eq "$(bg_held m/.adaptrm-held-0)" "" "the place is empty after --resume"
	expect_eq "$(sentinel_sum m/keep)" "$KEEP_SUM" "the sentinel tree changed"
	make_tree m/t4 10 1000
	"$ADAPTRM" -rf --background --max-ops=2000 m/t4
	pid=$(bg_deleter_pid "$SCRATCH/m/.adaptrm-held-0")
	[ -z "$pid" ] || kill -9 "$pid"
	make_tree m/t5 2 10
	"$ADAPTRM" -rf --background m/t5
	"$ADAPTRM" --wait "$SCRATCH/m"
	expect_eq "$(bg_held m/.adaptrm-held-0)" "" "the next --background finished the leftovers"
	expect_eq "$(sentinel_sum m/keep)" "$KEEP_SUM" "the sentinel tree changed"
}

# N concurrent calls on one filesystem: every tree goes, one place.
bg_concurrent() {
	bg_setup
	local i pids=()
	for i in $(seq 1 "$1"); do make_tree "m/c$i" 5 500; done
	for i in $(seq 1 "$1"); do
		"$ADAPTRM" -rf --background "m/c$i" &
		pids+=($!)
	done
	for i in "${pids[@]}"; do wait "$i" || fail "a --background call failed"; done
	for i in $(seq 1 "$1"); do expect_gone "m/c$i"; done
	"$ADAPTRM" --wait "$SCRATCH/m"
	expect_eq "$(bg_held m/.adaptrm-held-0)" "" "the place is empty"
	expect_eq "$(sentinel_sum m/keep)" "$KEEP_SUM" "the sentinel tree changed"
}
test_background_two_concurrent() { bg_concurrent 2; }
test_background_eight_concurrent() { bg_concurrent 8; }

# A mount below the operand is never carried into the place: the operand
# goes to the foreground (here with --one-file-system, so the mount stays).
test_background_mount_below_is_foreground() {
	bg_setup
	make_tree m/t 3 30
	mkdir -p m/t/inner
	mount -t tmpfs -o size=1M tmpfs m/t/inner || skip "cannot mount tmpfs"
	on_exit umount -l "$SCRATCH/m/t/inner"
	echo data >m/t/inner/file
	local out rc=0
	out=$("$ADAPTRM" -rf --one-file-system --background -v m/t 2>&1) || rc=$?
	expect_eq "$rc" 1 "the mount point itself cannot go"
	grep -q "deleted in the foreground: a mount point" <<<"$out" || fail "no reason given: $out"
	expect_exists m/t/inner/file
	expect_eq "$(bg_held m/.adaptrm-held-0)" "" "nothing was held"
}

# A holding place that is a symlink, or another user's directory, is
# refused with a message; the operand goes in the foreground and nothing is
# deleted or moved through the place.
bg_unsafe_place() {
	local out
	make_tree m/t 3 30
	out=$("$ADAPTRM" -rf --background m/t 2>&1) || fail "adaptrm failed: $out"
	grep -q "refusing the holding place" <<<"$out" || fail "no message: $out"
	expect_gone m/t
}
test_background_symlinked_place_refused() {
	bg_setup
	mkdir elsewhere && echo keep >elsewhere/file
	chmod 700 elsewhere
	ln -s "$SCRATCH/elsewhere" m/.adaptrm-held-0
	bg_unsafe_place
	expect_eq "$(ls elsewhere)" file "the symlink's target changed"
}
test_background_foreign_place_refused() {
	bg_setup
	mkdir -m 700 m/.adaptrm-held-0 && echo keep >m/.adaptrm-held-0/file
	chown -R nobody m/.adaptrm-held-0
	bg_unsafe_place
	expect_eq "$(ls m/.adaptrm-held-0)" file "the foreign place changed"
}

# A full filesystem: the operand is held (its record is its name, which
# needs no space) or, where the place cannot be made, deleted in the
# foreground; either way it goes, and the deleter runs without room for
# its pid.
test_background_full_filesystem() {
	bg_setup 4M
	make_tree m/t 3 30
	head -c 8M /dev/zero >m/fill 2>/dev/null || true
	"$ADAPTRM" -rf --background m/t
	expect_gone m/t
	"$ADAPTRM" --wait "$SCRATCH/m"
	expect_eq "$(sentinel_sum m/keep)" "$KEEP_SUM" "the sentinel tree changed"
}

# An unprivileged user who cannot write the mount's root holds the tree in
# a place in the operand's directory.
test_background_unprivileged_user() {
	bg_setup
	command -v setpriv >/dev/null || skip "no setpriv"
	local nobody
	nobody=$(id -u nobody 2>/dev/null) || skip "no user nobody"
	chmod 755 m # a tmpfs's root is world-writable unless told otherwise
	mkdir -p m/home/state && make_tree m/home/t 5 200
	chown -R nobody m/home
	on_exit bg_kill_deleters "$SCRATCH/m/home/.adaptrm-held-$nobody/lock"
	as_nobody() {
		setpriv --reuid=nobody --regid=nogroup --clear-groups \
			env XDG_STATE_HOME="$SCRATCH/m/home/state" "$ADAPTRM" "$@"
	}
	as_nobody -rf --background m/home/t
	expect_gone m/home/t
	as_nobody --wait "$SCRATCH/m/home/t"
	expect_eq "$(stat -c '%a %U' "m/home/.adaptrm-held-$nobody")" "700 nobody" "the place"
	expect_eq "$(bg_held "m/home/.adaptrm-held-$nobody")" "" "the place is empty"
	expect_gone m/.adaptrm-held-0
}

# The CPU policies of the threads of process $1, one line each, sorted and
# unique (a thread that ends meanwhile is left out).
bg_policies() {
	local tid
	for tid in "/proc/$1/task"/*; do
		chrt -p "${tid##*/}" 2>/dev/null | sed -n 's/.*current scheduling policy: //p'
	done | sort -u
}

# Where nobody else uses the device (tmpfs has none) the deleter's threads
# run the normal CPU policy at nice 19: the idle policy would get almost no
# CPU beside busy CPUs. --max-ops keeps it alive however fast the machine
# is; it is then killed, and the tmpfs goes with what it held.
test_background_deleter_runs_the_normal_policy_alone() {
	bg_setup
	make_tree m/t 10 300
	"$ADAPTRM" -rf --background --max-ops=100 m/t
	local pid
	pid=$(bg_deleter_pid "$SCRATCH/m/.adaptrm-held-0")
	[ -n "$pid" ] || fail "no deleter running for the held tree"
	expect_eq "$(bg_policies "$pid")" SCHED_OTHER "the deleter's threads' policies"
	expect_eq "$(ps -o ni= -p "$pid" | tr -d ' ')" 19 "the deleter's nice value"
	kill -9 "$pid"
}

# --pending lists a held path until it is gone; --wait returns once it is.
test_background_pending_and_wait() {
	bg_setup
	make_tree m/slow 10 300
	"$ADAPTRM" -rf --background --max-ops=1000 m/slow
	local pending
	pending=$("$ADAPTRM" --pending)
	# the deleter may have finished already: then nothing is listed
	[ -z "$(bg_held m/.adaptrm-held-0)" ] || grep -q "$SCRATCH/m/slow" <<<"$pending" ||
		grep -q "$SCRATCH/m/.adaptrm-held-0: deleter" <<<"$pending" ||
		fail "--pending does not list it: $pending"
	"$ADAPTRM" --wait "$SCRATCH/m/slow"
	expect_eq "$(bg_held m/.adaptrm-held-0)" "" "--wait returned before the end"
	pending=$("$ADAPTRM" --pending)
	grep -q "$SCRATCH/m/slow" <<<"$pending" && fail "--pending still lists it: $pending"
	return 0
}

# --wait on a terminal draws a line while it waits (ptyterm checks that one
# was drawn before its resize, and that every line fits) and leaves its
# one-line summary; --pending says when nothing is held. The deleter is
# paced to last seconds (4021 entries at 1000 a second).
test_background_wait_on_a_terminal() {
	bg_setup
	expect_eq "$("$ADAPTRM" --pending)" "nothing is held" "--pending with nothing held"
	make_tree m/slow 20 200
	"$ADAPTRM" -rf --background --max-ops=1000 m/slow
	python3 "$E2E_REPO/tests/tools/ptyterm.py" --cols 50 --after 1 --resize 100 --rows-out rows -- \
		"$ADAPTRM" --wait "$SCRATCH/m/slow" 2>err || fail "$(cat err)"
	expect_eq "$(bg_held m/.adaptrm-held-0)" "" "--wait returned before the end"
	expect_eq "$(wc -l <rows)" 1 "rows left on the screen: $(cat rows)"
	grep -Eq '^done waiting in [0-9.]+ s, the deleter removed [0-9]+ files, [0-9]+ directories$' rows ||
		fail "no summary: $(cat rows)"
}

# The deleter touches only what a valid record names, and only while the
# named entry's device and inode match the record: a stranger in the place,
# an entry swapped under a record and a corrupted record all stay.
test_background_only_recorded_entries_go() {
	bg_setup
	local place=m/.adaptrm-held-0 dev
	make_tree m/t 3 30
	"$ADAPTRM" -rf --background m/t
	"$ADAPTRM" --wait "$SCRATCH/m/t"
	make_sentinel "$place/stranger"
	make_sentinel "$place/swapped"
	dev=$(stat -c %d "$place")
	printf 'adaptrm-held 1\nname swapped\nuid 0\ntime 1\ndev %s\nino 1\nsize 0\npath /x\nend\n' \
		"$dev" >"$place/swapped.rec"
	make_sentinel "$place/corrupt"
	printf 'adaptrm-held 1\nname corrupt\nuid 0\n' >"$place/corrupt.rec"
	local before
	before=$(sentinel_sum "$place/stranger")$(sentinel_sum "$place/swapped")$(sentinel_sum "$place/corrupt")
	make_tree m/t2 3 30
	"$ADAPTRM" -rf --background m/t2
	"$ADAPTRM" --wait "$SCRATCH/m/t2" 2>/dev/null || true
	expect_gone m/t2
	expect_eq "$(sentinel_sum "$place/stranger")$(sentinel_sum "$place/swapped")$(sentinel_sum "$place/corrupt")" \
		"$before" "an entry without a valid, matching record was touched"
	bg_until_idle
	grep -q "is not what was held" "$XDG_STATE_HOME/adaptrm/deleter.log" ||
		fail "the log does not say why the swapped entry stays"
}

# A record is written before its entry moves in: a deleter that finds a
# young record without its entry leaves it, and deletes the entry once it
# arrives (another call's rename, between its record and its move).
test_background_record_before_its_entry() {
	bg_setup
	local place=m/.adaptrm-held-0
	make_tree m/t 2 20
	"$ADAPTRM" -rf --background m/t
	"$ADAPTRM" --wait "$SCRATCH/m/t"
	make_tree m/late 2 20
	printf 'adaptrm-held 1\nname late1\nuid 0\ntime %s\ndev %s\nino %s\nsize 0\npath /late\nend\n' \
		"$(date +%s)" "$(stat -c %d m/late)" "$(stat -c %i m/late)" >"$place/late1.rec"
	make_tree m/t2 2 20
	"$ADAPTRM" -rf --background m/t2
	"$ADAPTRM" --wait "$SCRATCH/m/t2"
	expect_exists "$place/late1.rec"
	mv m/late "$place/late1"
	"$ADAPTRM" --wait /late
	expect_gone "$place/late1"
	expect_gone "$place/late1.rec"
	expect_eq "$(sentinel_sum m/keep)" "$KEEP_SUM" "the sentinel tree changed"
}

# The entry's name is its record: an entry named so and left without a
# deleter (a crash right after the rename) is resumed and goes, and a path
# too long for a name is kept in a side file that goes with it. Records
# written as files by older versions are read too (the tests above).
test_background_name_records_are_resumed() {
	bg_setup
	local place=m/.adaptrm-held-0 long name
	make_tree m/t 2 20
	"$ADAPTRM" -rf --background m/t
	"$ADAPTRM" --wait "$SCRATCH/m/t"
	make_tree m/crashed 2 20
	name="h2~0~$(date +%s)~$(stat -c %d m/crashed)~$(stat -c %i m/crashed)~0~1-2-3~+crashed"
	mv m/crashed "$place/$name"
	"$ADAPTRM" --pending | grep -q "^/crashed	held" || fail "--pending does not list it"
	"$ADAPTRM" --resume
	"$ADAPTRM" --wait /crashed
	expect_gone "$place/$name"
	long=m/$(printf 'd%.0s' $(seq 1 120))/$(printf 'e%.0s' $(seq 1 120))
	make_tree "$long" 2 20
	"$ADAPTRM" -rf --background "$long"
	expect_gone "$long"
	"$ADAPTRM" --pending | grep -q "$SCRATCH/$long" ||
		[ -z "$(bg_held "$place")" ] || fail "--pending does not list the long path"
	"$ADAPTRM" --wait "$SCRATCH/$long"
	expect_eq "$(bg_held "$place")" "" "the place is empty"
	expect_eq "$(sentinel_sum m/keep)" "$KEEP_SUM" "the sentinel tree changed"
}

# Beside a process that fsyncs in a loop on the same device, the deleter
# yields (its status says so while the loop runs, its --stats line counts
# the yield), and once the loop ends it deletes the whole tree. --max-ops
# keeps the deleter busy long enough for its status to be read however fast
# the machine is; the waits are bounded polls. On btrfs the counters are its
# devices' (its st_dev is an anonymous one).
bg_yields() {
	need_root
	export XDG_STATE_HOME=$SCRATCH/state
	mount_fs "$1" m 512M || skip "cannot make a $1 image"
	local place=m/.adaptrm-held-0 i state=
	[ "$(wc -w <"/sys/block/${FS_LOOP#/dev/}/stat")" -ge 17 ] || skip "no flush counters"
	on_exit bg_kill_deleters "$SCRATCH/$place/lock"
	make_tree m/t 20 250
	sync -f m
	"$TOOLS/fsync_probe" --interval-ms=2 --duration=600 m >"$SCRATCH/probe.out" 2>&1 &
	local probe=$!
	on_exit kill "$probe"
	"$ADAPTRM" -rf --background --stats --max-ops=1000 m/t
	expect_gone m/t
	for i in $(seq 1 600); do
		state=$(sed -n 's/^state //p' "$place/status" 2>/dev/null || true)
		[ "$state" = yield ] && break
		[ -z "$(bg_held "$place")" ] && break
		sleep 0.05
	done
	expect_eq "$state" yield "the deleter's state beside an fsync loop"
	# yielding, its threads run the idle CPU policy: others' threads
	# preempt them at once
	local pid
	pid=$(sed -n 's/^pid //p' "$place/status" 2>/dev/null || true)
	[ -n "$pid" ] || fail "no pid in the status of a yielding deleter"
	expect_eq "$(bg_policies "$pid")" SCHED_IDLE "the policies of a yielding deleter's threads"
	kill "$probe"
	wait "$probe" || true
	"$ADAPTRM" --wait "$SCRATCH/m/t"
	expect_eq "$(bg_held "$place")" "" "the place is empty after --wait"
	bg_log_has "yielded to others' syncs [1-9][0-9]* times" ||
		fail "no yield in the log: $(cat "$XDG_STATE_HOME/adaptrm/deleter.log")"
}
test_background_yields_to_others_syncs() { bg_yields ext4; }
test_background_yields_to_others_syncs_on_btrfs() { bg_yields btrfs; }

# Alone on an ext4 whose journal is small enough that the deleter's own
# unlinks fill it again and again, its journal-full commits flush the device
# as others' syncs would: the deleter tells them apart by holding (a probe)
# and never yields, and the tree goes.
test_background_runs_alone_beside_its_own_commits() {
	need_root
	export XDG_STATE_HOME=$SCRATCH/state
	local img place=m/.adaptrm-held-0 majmin log
	img=$(mktemp -p "${FSIMG_DIR:-/var/tmp}" adaptrm-ext4.XXXXXX.img)
	on_exit rm -f "$img"
	mkdir -p m
	fs_make_image ext4 "$img" 512M -J size=4 -N 120000 || skip "cannot make an ext4 image"
	fs_loop_mount "$img" m
	local rc=$?
	[ -z "$FS_LOOP" ] || on_exit losetup -d "$FS_LOOP"
	[ $rc = 0 ] || skip "cannot mount the ext4 image"
	on_exit umount -l m
	majmin=$(mountpoint -d m)
	[ "$(wc -w <"/sys/dev/block/$majmin/stat")" -ge 17 ] || skip "no flush counters"
	on_exit bg_kill_deleters "$SCRATCH/$place/lock"
	make_tree m/t 200 250
	sync -f m
	"$ADAPTRM" -rf --background --stats m/t
	expect_gone m/t
	"$ADAPTRM" --wait "$SCRATCH/m/t"
	expect_eq "$(bg_held "$place")" "" "the place is empty after --wait"
	log=$XDG_STATE_HOME/adaptrm/deleter.log
	bg_log_has "removed 50000 files, 201 directories .*yielded to others' syncs 0 times" ||
		fail "the deleter yielded alone: $(cat "$log")"
	grep -q "others' syncs, yielding" "$log" && fail "a probe found others' syncs: $(cat "$log")"
	# after a probe's hold (one worker) the controller's count runs again
	local line chosen running
	line=$(grep -o "the controller's [0-9]* threads\?, [0-9]* running at the end" "$log" | tail -1)
	[ -n "$line" ] || fail "no threads line in the log: $(cat "$log")"
	chosen=${line#the controller\'s } running=${line#*, }
	chosen=${chosen%% *} running=${running%% *}
	expect_eq "$running" "$chosen" "workers running at the end against the controller's ($line)"
	grep -q "probed [1-9]" "$log" || echo "(no probe in this run: the count was never held)" >&2
	return 0
}
