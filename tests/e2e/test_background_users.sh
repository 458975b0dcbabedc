# SPDX-License-Identifier: GPL-3.0-or-later
# --background among other local users. Two accounts are made for each test
# (useradd -m: neither has ~/.local), the shared directory is a tmpfs of mode
# 1777 as /tmp is, and the kernel follows symlinks in sticky directories
# (protected_symlinks=0, its default). User B plants what it can where A's
# delete might look; A's delete must finish, write nothing outside its
# operand and its own state, leave B's files as they were, and say what it
# could not do with a failing status. No test depends on timing: --wait is
# the bound, and `timeout` only detects a hang.

# The deleters A started are A's processes: make_user kills them at exit.
bgu_setup() {
	need_root
	command -v setpriv >/dev/null || skip "no setpriv"
	on_exit bgu_drop_leaked_log # run after the users' processes are killed
	make_user && USER_A=$MADE_USER
	make_user && USER_B=$MADE_USER
	UID_A=$(id -u "$USER_A") UID_B=$(id -u "$USER_B")
	HOME_A=$(getent passwd "$USER_A" | cut -d: -f6)
	HOME_B=$(getent passwd "$USER_B" | cut -d: -f6)
	echo "alias ls='ls -F'" >"$HOME_A/.bashrc"
	chown "$USER_A:" "$HOME_A/.bashrc"
	local ps=/proc/sys/fs/protected_symlinks
	if [ -w $ps ]; then
		on_exit "echo $(cat $ps) >$ps"
		echo 0 >$ps
	fi
	mount_fs tmpfs m 256M || skip "cannot mount tmpfs"
	chmod 1777 m
	make_sentinel m/keep
	A_SUM=$(bgu_home_sum "$HOME_A")
	B_SUM=$(bgu_home_sum "$HOME_B")
	KEEP_SUM=$(sentinel_sum m/keep)
}

# A log a version under test left in /tmp for one of the test's users.
bgu_drop_leaked_log() {
	local owner
	owner=$(stat -c %u /tmp/deleter.log 2>/dev/null) || return 0
	[ "$owner" = "${UID_A:-}" ] || [ "$owner" = "${UID_B:-}" ] && rm -f /tmp/deleter.log
	return 0
}

# A home's files and their contents, but for adaptrm's own state.
bgu_home_sum() {
	(cd "$1" && find . -path ./.local -prune -o -printf '%p %y %s %m\n' | LC_ALL=C sort &&
		find . -path ./.local -prune -o -type f -exec cat {} + | md5sum) | md5sum
}

# Nothing outside the operands changed: the homes, the sentinel tree.
bgu_nothing_else_changed() {
	expect_eq "$(bgu_home_sum "$HOME_A")" "$A_SUM" "A's home changed"
	expect_eq "$(bgu_home_sum "$HOME_B")" "$B_SUM" "B's home changed"
	expect_eq "$(sentinel_sum m/keep)" "$KEEP_SUM" "the sentinel tree changed"
}

# A tree of A's at m/NAME.
bgu_tree() {
	make_tree "m/$1" "${2:-5}" "${3:-100}"
	chown -R "$USER_A:" "m/$1"
}

# A's adaptrm.
bgu_a() { as_user "$USER_A" "$ADAPTRM" "$@"; }

# What A's place on m holds besides its lock and status.
bgu_held() {
	find "m/.adaptrm-held-$(id -u "$USER_A")" -mindepth 1 -maxdepth 1 ! -name lock \
		! -name status ! -name deleter.log -printf '%f\n' 2>/dev/null
}

# B plants KIND at /tmp/deleter.log, a fixed path earlier versions fell back
# to for the deleter's log when A had no ~/.local; A's --background must
# neither block on it, write through it, nor fail for it.
bgu_planted_log() {
	local planted=/tmp/deleter.log
	if [ -e $planted ] || [ -L $planted ]; then skip "$planted exists already"; fi
	on_exit rm -f $planted # after the users' processes are killed
	bgu_setup
	case $1 in
	fifo) as_user "$USER_B" mkfifo -m 666 $planted ;;
	symlink) as_user "$USER_B" ln -s "$HOME_A/.bashrc" $planted ;;
	file) as_user "$USER_B" sh -c "echo B >$planted && chmod 644 $planted" ;;
	esac
	local before
	before=$(stat -c '%F %U %s %Y' $planted)
	bgu_tree t
	local rc=0
	bgu_a -rf --background m/t || rc=$?
	expect_eq "$rc" 0 "--background's exit status"
	expect_gone m/t
	bgu_a --wait "$SCRATCH/m/t" || fail "--wait failed"
	expect_eq "$(bgu_held)" "" "the place is empty after --wait"
	expect_eq "$(stat -c '%F %U %s %Y' $planted)" "$before" "the planted $1 changed"
	local state=$HOME_A/.local/state/adaptrm
	expect_eq "$(stat -c '%a %U' "$state" "$HOME_A/.local" "$HOME_A/.local/state" | sort -u)" \
		"700 $USER_A" "A's state directory and the parents made for it"
	[ -s "$state/deleter.log" ] || [ -f "$state/deleter.log" ] || fail "no log in A's state"
	bgu_nothing_else_changed
}
test_background_users_planted_fifo_log() { bgu_planted_log fifo; }
test_background_users_planted_symlink_log() { bgu_planted_log symlink; }
test_background_users_planted_foreign_log() { bgu_planted_log file; }

# Without a home to keep state in, the log is in A's holding place, and
# nothing is written to a shared directory.
test_background_users_no_home_logs_in_the_place() {
	[ ! -e /tmp/deleter.log ] || skip "/tmp/deleter.log exists already"
	on_exit rm -f /tmp/deleter.log # after the users' processes are killed
	bgu_setup
	bgu_tree t
	timeout -k 5 120 setpriv --reuid="$USER_A" --regid="$(id -g "$USER_A")" --init-groups \
		env -i HOME=/nonexistent PATH=/usr/bin:/bin "$ADAPTRM" -rf --background --stats m/t ||
		fail "--background failed"
	expect_gone m/t
	timeout -k 5 120 setpriv --reuid="$USER_A" --regid="$(id -g "$USER_A")" --init-groups \
		env -i HOME=/nonexistent PATH=/usr/bin:/bin "$ADAPTRM" --wait "$SCRATCH/m/t" ||
		fail "--wait failed"
	expect_gone /tmp/deleter.log
	local log
	log=m/.adaptrm-held-$(id -u "$USER_A")/deleter.log
	expect_eq "$(stat -c '%U %a' "$log")" "$USER_A 600" "the log in the place"
	bgu_nothing_else_changed
}

# A deleter that cannot start (a process-count limit): the operand goes
# back to its path and is deleted in the foreground, with a warning; none
# of it stays held. --resume where no deleter can start fails, saying so.
test_background_users_deleter_cannot_start() {
	bgu_setup
	bgu_tree t
	local rc=0
	# LeakSanitizer's checker is one more task, which the limit refuses
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		as_user "$USER_A" prlimit --nproc=1 "$ADAPTRM" -rf --background m/t 2>err || rc=$?
	expect_eq "$rc" 0 "exit status after the foreground deleted it ($(cat err))"
	expect_gone m/t
	grep -q "cannot start the deleter (.*): 'm/t' is deleted in the foreground" err ||
		fail "no warning: $(cat err)"
	expect_eq "$(bgu_held)" "" "nothing is held"
	# something held and no deleter: --resume cannot start one, and says so
	bgu_tree t2
	bgu_a -rf --background --max-ops=20 m/t2
	pkill -KILL -u "$USER_A" -f -- ---background-deleter || true
	bgu_until_no_deleter
	rc=0
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		as_user "$USER_A" prlimit --nproc=1 "$ADAPTRM" --resume 2>err || rc=$?
	expect_eq "$rc" 1 "--resume's status when no deleter can start"
	grep -q "cannot start the deleter" err || fail "no message: $(cat err)"
	bgu_a --resume || fail "--resume failed without a limit"
	bgu_a --wait "$SCRATCH/m/t2" || fail "--wait failed"
	bgu_nothing_else_changed
}

# Until none of A's deleters runs (bounded).
bgu_until_no_deleter() {
	local i
	for i in $(seq 1 100); do
		pgrep -u "$USER_A" -f -- ---background-deleter >/dev/null || return 0
		sleep 0.05
	done
	fail "a deleter of A's still runs"
}

# The tree as find lists it under DIR, owners included.
bgu_listing() { (cd "$1" && find . -printf '%y %m %u %p\n' | LC_ALL=C sort); }

# B's directory in a directory all may write (not sticky), holding a
# directory of B's that A cannot empty: GNU rm -rf leaves what it cannot
# remove and fails. --background must do the same (it deletes another
# user's directory in the foreground), not move B's files out of B's reach.
test_background_users_anothers_directory_stays() {
	bgu_setup
	mkdir -m 777 m/w
	local d
	for d in gnu ada; do
		as_user "$USER_B" sh -c "mkdir -m 777 m/w/$d && mkdir m/w/$d/sub && echo B >m/w/$d/sub/file &&
			touch m/w/$d/loose && chmod 666 m/w/$d/loose"
	done
	local rc_gnu=0 rc=0
	as_user "$USER_A" rm -rf m/w/gnu 2>/dev/null || rc_gnu=$?
	bgu_a -rf --background m/w/ada 2>err || rc=$?
	expect_eq "$rc" "$rc_gnu" "exit status against GNU rm's ($(cat err))"
	expect_eq "$(bgu_listing m/w/ada)" "$(bgu_listing m/w/gnu)" "what is left against GNU rm's"
	expect_eq "$(as_user "$USER_B" cat m/w/ada/sub/file)" B "B's file as B reads it"
	expect_eq "$(bgu_held)" "" "nothing of B's is held"
	bgu_nothing_else_changed
}

# A's own directory holding a directory of B's that A cannot empty: the
# deleter removes what it can, puts the rest back at its path (where GNU
# rm -rf would have left it), and --wait says so and fails.
test_background_users_what_cannot_go_is_put_back() {
	bgu_setup
	local d
	for d in gnu ada; do
		bgu_tree "$d" 3 20
		mkdir "m/$d/theirs" && echo B >"m/$d/theirs/file"
		chown -R "$USER_B:" "m/$d/theirs"
	done
	local rc_gnu=0 rc=0
	as_user "$USER_A" rm -rf m/gnu 2>/dev/null || rc_gnu=$?
	expect_eq "$rc_gnu" 1 "GNU rm's status"
	bgu_a -rf --background m/ada || fail "--background failed"
	bgu_a --wait "$SCRATCH/m/ada" 2>err || rc=$?
	expect_eq "$rc" 1 "--wait's status when something is left ($(cat err))"
	grep -q "cannot remove '$SCRATCH/m/ada' entirely: what is left is back at its path" err ||
		fail "--wait does not say what is left: $(cat err)"
	expect_eq "$(bgu_listing m/ada)" "$(bgu_listing m/gnu)" "what is left against GNU rm's"
	expect_eq "$(as_user "$USER_B" cat m/ada/theirs/file)" B "B's file as B reads it"
	expect_eq "$(bgu_held)" "" "nothing is held"
	# said once: a second --wait has nothing to report
	bgu_a --wait "$SCRATCH/m/ada" || fail "the second --wait failed"
	bgu_nothing_else_changed
}

# A deleter's liveness is its lock: held before --background returns, and
# a process of B's whose pid is in the lock file and whose arguments look
# like a deleter's (a pid reused after the deleter died) is no deleter.
test_background_users_the_lock_is_the_truth() {
	bgu_setup
	bgu_tree t 5 200
	bgu_a -rf --background --max-ops=20 m/t
	local place
	place=$SCRATCH/m/.adaptrm-held-$(id -u "$USER_A")
	bgu_a --pending | grep -q "^$place: deleter [0-9]* running" ||
		fail "no deleter running right after --background returned: $(bgu_a --pending)"
	pkill -KILL -u "$USER_A" -f -- ---background-deleter || true
	bgu_until_no_deleter
	as_user "$USER_B" python3 -c 'import time; time.sleep(300)' ---background-deleter \
		"$place" 0 0 - &
	local fake='' i
	for i in $(seq 1 100); do
		fake=$(pgrep -u "$USER_B" -f -- "^python3 .*---background-deleter") && break
		sleep 0.05
	done
	[ -n "$fake" ] || fail "B's process did not start"
	# the pid in the lock file is only a hint: here it names B's process
	echo "$fake" >"$place/lock"
	bgu_a --pending | grep -q "^$place: no deleter running" ||
		fail "--pending believes the pid: $(bgu_a --pending)"
	bgu_a --resume
	bgu_a --wait "$SCRATCH/m/t" || fail "--wait failed"
	expect_eq "$(bgu_held)" "" "the place is empty"
	bgu_nothing_else_changed
}

# Under the caller's address-space limit the deleter degrades as the
# foreground does: a 20,000-deep chain goes whole either way, for a user
# and for root.
bgu_memory_limit() {
	[ -z "${E2E_SAN:-}" ] || skip "not under the $E2E_SAN build"
	command -v prlimit >/dev/null || skip "no prlimit"
	bgu_setup
	local i log=$HOME_A/.local/state/adaptrm/deleter.log run=(as_user "$USER_A")
	if [ "$1" = root ]; then
		export XDG_STATE_HOME=$SCRATCH/state
		log=$XDG_STATE_HOME/adaptrm/deleter.log run=()
	fi
	for i in 1 2; do
		make_chain "m/c$i" 20000
		[ "$1" = root ] || chown -R "$USER_A:" "m/c$i"
	done
	"${run[@]}" prlimit --as=$((16 << 20)) "$ADAPTRM" -rf m/c1 || fail "the foreground failed"
	expect_gone m/c1
	"${run[@]}" prlimit --as=$((16 << 20)) "$ADAPTRM" -rf --background m/c2 ||
		fail "--background failed"
	"${run[@]}" "$ADAPTRM" --wait "$SCRATCH/m/c2" || fail "--wait failed: $(cat "$log")"
	expect_gone m/c2
	grep -q "Cannot allocate memory" "$log" && fail "the deleter ran out of memory: $(cat "$log")"
	bgu_nothing_else_changed
}
test_background_users_memory_limit() { bgu_memory_limit user; }
test_background_users_memory_limit_root() { bgu_memory_limit root; }

# --pending quotes held names as GNU quotes file names: a newline cannot
# forge a line of its own, an escape sequence cannot reach the terminal.
test_background_users_pending_quotes_names() {
	bgu_setup
	local uid place name t
	uid=$(id -u "$USER_A")
	place=m/.adaptrm-held-$uid
	bgu_tree t 1 1
	bgu_a -rf --background m/t
	bgu_a --wait "$SCRATCH/m/t"
	bgu_tree crashed 1 1
	t=$(date +%s)
	# the record a crash right after the rename leaves: the path is
	# "/x<newline>/etc/passwd<tab>held 0s ago<ESC>[2J"
	name="h2~$uid~$t~$(stat -c %d m/crashed)~$(stat -c %i m/crashed)~0~1-2-3~+x%0A+etc+passwd%09held%200s%20ago%1B%5B2J"
	mv m/crashed "$place/$name"
	bgu_a --pending >out
	grep -q "^/etc/passwd" out && fail "a held name forged a line: $(cat out)"
	grep -q $'\033' out && fail "an escape sequence reached the output: $(cat -v out)"
	grep -qF "'/x'\$'\\n''/etc/passwd'\$'\\t''held 0s ago'\$'\\033''[2J'" out ||
		fail "the name is not quoted as GNU quotes it: $(cat -v out)"
	bgu_a --resume
	bgu_a --wait /x || fail "--wait failed"
	bgu_nothing_else_changed
}
